package dev.idempotency.store.redis;

import dev.idempotency.testing.TestDatabases;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Redis server {@code scripts/services.sh} starts ({@code IDEMPOTENCY_TEST_REDIS_URL}), shared
 * with every other test run on the machine: each test works under a key prefix of its own and
 * deletes its keys after itself. Fails in CI and skips locally when the variable is missing.
 */
final class SharedRedis {
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private SharedRedis() {}

  /** A client for the shared server; the caller shuts it down. */
  static RedisClient client() {
    return RedisClient.create(uri());
  }

  /** The shared server's URI. */
  static String uri() {
    return TestDatabases.require("IDEMPOTENCY_TEST_REDIS_URL").get(0);
  }

  /** A key prefix no other test (of this run or another process's) uses. */
  static String uniquePrefix(String what) {
    return "t-"
        + what
        + "-"
        + ProcessHandle.current().pid()
        + "-"
        + Long.toHexString(System.nanoTime())
        + "-"
        + PREFIXES.incrementAndGet()
        + ":";
  }

  /** A connection in the store's codec. */
  static StatefulRedisConnection<byte[], byte[]> connect(RedisClient client) {
    return client.connect(ByteArrayCodec.INSTANCE);
  }

  /** Deletes every key under {@code prefix} ({@code SCAN}, never {@code KEYS}). */
  static void deleteAll(StatefulRedisConnection<byte[], byte[]> connection, String prefix) {
    RedisCommands<byte[], byte[]> sync = connection.sync();
    ScanArgs match = ScanArgs.Builder.matches(prefix.replace("{", "\\{") + "*").limit(1000);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<byte[]> page = sync.scan(cursor, match);
      if (!page.getKeys().isEmpty()) {
        sync.unlink(page.getKeys().toArray(new byte[0][]));
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  /** Deletes every key under {@code prefix}, then closes the connection and the client. */
  static void cleanUp(
      RedisClient client, StatefulRedisConnection<byte[], byte[]> connection, String prefix) {
    try {
      deleteAll(connection, prefix);
    } finally {
      connection.close();
      client.shutdown();
    }
  }

  /** How many keys live under {@code prefix}. */
  static long count(StatefulRedisConnection<byte[], byte[]> connection, String prefix) {
    RedisCommands<byte[], byte[]> sync = connection.sync();
    ScanArgs match = ScanArgs.Builder.matches(prefix + "*").limit(1000);
    long n = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<byte[]> page = sync.scan(cursor, match);
      n += page.getKeys().size();
      cursor = page;
    } while (!cursor.isFinished());
    return n;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
