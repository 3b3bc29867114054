package dev.idempotency.store.redis;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A test's own {@code redis-server} with a client and one connection to it, closed together: the
 * connection, the client (its event loops), then the server process.
 */
final class OwnRedis implements AutoCloseable {
  static final Fingerprint FINGERPRINT = Fingerprint.of(new byte[] {1, 2, 3});
  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration WINDOW = Duration.ofHours(24);

  final RedisServerProcess server;
  final RedisClient client;
  final StatefulRedisConnection<byte[], byte[]> connection;

  OwnRedis(Path dir, String... serverOptions) throws Exception {
    server = RedisServerProcess.start(dir, serverOptions);
    client = RedisClient.create(server.uri());
    connection = client.connect(ByteArrayCodec.INSTANCE);
  }

  RedisKeyStoreBuilder store() {
    return RedisKeyStore.builder(connection).commandTimeout(Duration.ofMillis(500));
  }

  static ClaimOutcome claim(KeyStore store, RecordId id, Instant now) {
    return store.claim(new ClaimRequest(id, FINGERPRINT, now, LEASE, WINDOW));
  }

  /**
   * Waits (at most 15 s) until the connection has reconnected to a restarted server and a claim
   * goes through; returns that claim's outcome.
   */
  static ClaimOutcome claimOnceReachable(KeyStore store, RecordId id, Instant now)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      try {
        return claim(store, id, now);
      } catch (StoreUnavailableException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  @Override
  public void close() throws Exception {
    try {
      connection.close();
      client.shutdown();
    } finally {
      server.close();
    }
  }
}
