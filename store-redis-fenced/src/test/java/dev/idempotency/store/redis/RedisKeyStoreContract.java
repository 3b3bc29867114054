package dev.idempotency.store.redis;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.tck.KeyStoreContract;
import dev.idempotency.tck.TckContext;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;

/**
 * The TCK against the shared Redis server: every test under a key prefix of its own (deleted after
 * it), the store and each peer on a connection of their own (other application instances). The
 * client, with its event loops, is shared by the tests of one class.
 */
abstract class RedisKeyStoreContract extends KeyStoreContract {
  private static final Map<Class<?>, RedisClient> CLIENTS = new ConcurrentHashMap<>();
  private String prefix = "";

  abstract RedisClock clock();

  /** The store's index shards; 1, the default of a standalone connection, unless overridden. */
  int indexShards() {
    return 1;
  }

  private RedisClient client() {
    return CLIENTS.computeIfAbsent(getClass(), c -> SharedRedis.client());
  }

  /**
   * The TCK checks what each call does, not how fast: its long runs share two cores with the JDBC
   * long runs, where one call once went unanswered for the store's default 2 s. The 5 s the JDBC
   * and DynamoDB stores' tests allow.
   */
  private static final Duration CALL_BOUND = Duration.ofSeconds(5);

  private KeyStore store(StatefulRedisConnection<byte[], byte[]> connection) {
    return RedisKeyStore.builder(connection)
        .commandTimeout(CALL_BOUND)
        .keyPrefix(prefix)
        .clock(clock())
        .indexShards(indexShards())
        .build();
  }

  @Override
  protected KeyStore newStore(TckContext context) {
    prefix = SharedRedis.uniquePrefix("tck");
    StatefulRedisConnection<byte[], byte[]> connection = SharedRedis.connect(client());
    String p = prefix;
    context.onClose(connection); // registered first, closed last
    context.onClose(() -> SharedRedis.deleteAll(connection, p));
    return store(connection);
  }

  @Override
  protected KeyStore newPeer(KeyStore store, TckContext context) {
    StatefulRedisConnection<byte[], byte[]> connection = SharedRedis.connect(client());
    context.onClose(connection);
    return store(connection);
  }

  @AfterAll
  static void shutDownClients() {
    CLIENTS.values().forEach(RedisClient::shutdown);
    CLIENTS.clear();
  }
}
