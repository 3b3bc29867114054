package dev.idempotency.admin;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.redis.RedisClock;
import dev.idempotency.store.redis.RedisKeyStore;
import dev.idempotency.testing.TestDatabases;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.List;

/**
 * {@link AdminCliContract} on the real Redis ({@code IDEMPOTENCY_TEST_REDIS_URL}), shared with
 * other test runs: the records live under a key prefix of the test's own, which the tool is given
 * with {@code --key-prefix}, and are deleted afterwards.
 */
class AdminCliRedisIT extends AdminCliContract {
  private String uri = "";
  private String prefix = "";
  private RedisClient client;
  private StatefulRedisConnection<byte[], byte[]> connection;

  @Override
  KeyStore openStore() {
    uri = TestDatabases.require("IDEMPOTENCY_TEST_REDIS_URL").get(0);
    prefix =
        "t-admin-"
            + ProcessHandle.current().pid()
            + "-"
            + Long.toHexString(System.nanoTime())
            + ":";
    client = RedisClient.create(uri);
    connection = client.connect(ByteArrayCodec.INSTANCE);
    return RedisKeyStore.builder(connection).keyPrefix(prefix).clock(RedisClock.ENGINE).build();
  }

  @Override
  void dropStore() {
    if (client == null) {
      return;
    }
    try {
      RedisCommands<byte[], byte[]> sync = connection.sync();
      ScanArgs match = ScanArgs.Builder.matches(prefix + "*").limit(1000);
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<byte[]> page = sync.scan(cursor, match);
        if (!page.getKeys().isEmpty()) {
          sync.unlink(page.getKeys().toArray(new byte[0][]));
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Override
  List<String> storeOptions() {
    return List.of("--redis-uri", uri, "--key-prefix", prefix, "--timeout", "2");
  }

  @Override
  List<String> unreachableStoreOptions(int port) {
    return List.of("--redis-uri", "redis://127.0.0.1:" + port, "--timeout", "1");
  }
}
