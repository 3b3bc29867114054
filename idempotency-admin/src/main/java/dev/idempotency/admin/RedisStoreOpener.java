package dev.idempotency.admin;

import dev.idempotency.StoreUnavailableException;
import dev.idempotency.admin.AdminCli.Args;
import dev.idempotency.admin.AdminCli.UsageException;
import dev.idempotency.store.redis.RedisKeyStore;
import dev.idempotency.store.redis.RedisKeyStoreBuilder;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.Map;

/**
 * Opens a Redis store from {@code --redis-uri} (default {@code $IDEMPOTENCY_ADMIN_REDIS_URI}, which
 * keeps a password in the URI off the command line), {@code --key-prefix} and {@code
 * --index-shards}: the last two must be the application's store settings, or the tool looks for the
 * records under other keys and finds none. Standalone and Sentinel servers ({@code
 * redis-sentinel://}); a Cluster is not opened here.
 */
final class RedisStoreOpener {
  private RedisStoreOpener() {}

  static OpenStore open(Args args, Map<String, String> env) throws UsageException {
    String uri = args.requiredOrEnv("--redis-uri", env, "IDEMPOTENCY_ADMIN_REDIS_URI");
    Duration timeout = StoreKind.timeout(args);
    RedisURI redisUri;
    try {
      redisUri = RedisURI.create(uri);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--redis-uri: " + e.getMessage());
    }
    redisUri.setTimeout(timeout);
    int shards = indexShards(args);
    RedisClient client = RedisClient.create(redisUri);
    try {
      client.setOptions(
          ClientOptions.builder()
              .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
              .build());
      StatefulRedisConnection<byte[], byte[]> connection;
      try {
        connection = client.connect(ByteArrayCodec.INSTANCE);
      } catch (RedisException e) {
        throw new StoreUnavailableException("cannot connect to Redis: " + e.getMessage(), e);
      }
      RedisKeyStoreBuilder builder =
          RedisKeyStore.builder(connection).indexShards(shards).commandTimeout(timeout);
      if (args.get("--key-prefix").isPresent()) {
        builder.keyPrefix(args.get("--key-prefix").get());
      }
      RedisKeyStore store;
      try {
        store = builder.build();
      } catch (IllegalArgumentException e) {
        throw new UsageException("--key-prefix: " + e.getMessage());
      }
      return new OpenStore(store, () -> shutDown(client));
    } catch (UsageException | RuntimeException e) {
      shutDown(client);
      throw e;
    }
  }

  private static int indexShards(Args args) throws UsageException {
    int shards;
    try {
      shards = Integer.parseInt(args.get("--index-shards").orElse("1"));
    } catch (NumberFormatException e) {
      shards = 0;
    }
    if (shards < 1 || shards > 16384) {
      throw new UsageException("--index-shards must be 1 to 16384, the application store's count");
    }
    return shards;
  }

  /** Closes the connection and ends the client's threads, without the default quiet period. */
  private static void shutDown(RedisClient client) {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
