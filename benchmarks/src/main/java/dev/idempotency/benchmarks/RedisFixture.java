package dev.idempotency.benchmarks;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.redis.RedisKeyStore;
import dev.idempotency.store.redis.RedisKeyStoreBuilder;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@link RedisKeyStore} on the Redis test server against a bare lock on the same connection: a
 * claim is {@code SET key fingerprint NX PX 30000}, a completion {@code SET key
 * fingerprint+response XX}, a replay or a mismatch one {@code GET}. With a replica ({@link
 * #withReplica}), a replica process of the test server this fixture starts and kills, the store
 * waits for it after every write ({@code waitForReplicas(1, 1 s)}) and so does the baseline ({@code
 * WAIT 1 1000} after each {@code SET}).
 */
final class RedisFixture implements Fixture {
  private static final Duration LOCK = Duration.ofSeconds(30);

  private final RedisClient client;
  private final StatefulRedisConnection<byte[], byte[]> connection;
  private final String prefix = "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final RedisKeyStore store;
  private final BareLockBaseline baseline;
  private final Process replica; // null: no replica

  private RedisFixture(String uri, Process replica) {
    this.replica = replica;
    client = RedisClient.create(uri);
    connection = client.connect(ByteArrayCodec.INSTANCE);
    RedisKeyStoreBuilder b = RedisKeyStore.builder(connection).keyPrefix(prefix + ":");
    if (replica != null) {
      // WAIT on a connection of its own, as the store requires; client.shutdown() closes it
      b.waitForReplicas(1, Duration.ofSeconds(1), client.connect(ByteArrayCodec.INSTANCE));
    }
    store = b.build();
    baseline = new BareLockBaseline(replica != null);
  }

  /** The store on the test server ({@code IDEMPOTENCY_TEST_REDIS_URL}). */
  static RedisFixture fromEnvironment() {
    return new RedisFixture(uri(), null);
  }

  /** The same, waiting for a replica process of the test server after every write. */
  static RedisFixture withReplica() throws IOException, InterruptedException {
    java.net.URI uri = java.net.URI.create(uri());
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path dir = Files.createTempDirectory("bench-replica");
    Process replica =
        new ProcessBuilder(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--replicaof",
                uri.getHost(),
                Integer.toString(uri.getPort()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("replica.log").toFile())
            .start();
    RedisFixture fixture = new RedisFixture(uri(), replica);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (fixture.connection.sync().waitForReplication(1, 100) < 1) {
      if (System.nanoTime() > deadline) {
        fixture.close();
        throw new IllegalStateException("the replica on port " + port + " did not sync in 30 s");
      }
    }
    return fixture;
  }

  private static String uri() {
    String uri = System.getenv("IDEMPOTENCY_TEST_REDIS_URL");
    if (uri == null) {
      throw new IllegalStateException(
          "IDEMPOTENCY_TEST_REDIS_URL is not set: start the test servers with"
              + " eval \"$(bash scripts/services.sh)\" (benchmarks/run.sh does it)");
    }
    return uri;
  }

  @Override
  public KeyStore store() {
    return store;
  }

  @Override
  public Baseline baseline() {
    return baseline;
  }

  @Override
  public void clear() {
    deleteUnder(connection, prefix);
  }

  /**
   * Deletes every key under {@code prefix} in one script that walks the key space with {@code SCAN}
   * (never {@code KEYS}): it holds Redis for as long as the walk takes, which a benchmark's set-up
   * may.
   */
  static void deleteUnder(StatefulRedisConnection<byte[], byte[]> connection, String prefix) {
    connection
        .sync()
        .eval(
            "local cursor = '0'\n"
                + "repeat\n"
                + "  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 10000)\n"
                + "  cursor = page[1]\n"
                + "  for _, k in ipairs(page[2]) do redis.call('UNLINK', k) end\n"
                + "until cursor == '0'\n"
                + "return 0",
            ScriptOutputType.INTEGER,
            new byte[0][],
            (prefix + "*").getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Claims and completes {@code count} records through the store from 32 threads at once (Lettuce
   * pipelines them over the one connection): a million one at a time would take minutes.
   */
  @Override
  public void preload(
      String scope, String prefix, int count, byte[] fingerprint, StoredResponse response)
      throws Exception {
    Fingerprint fp = Fingerprint.of(fingerprint);
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      int slice = (count + 31) / 32;
      Future<?>[] parts = new Future<?>[32];
      for (int t = 0; t < 32; t++) {
        int from = t * slice;
        int to = Math.min(count, from + slice);
        parts[t] =
            pool.submit(
                () -> {
                  for (int i = from; i < to; i++) {
                    preloadOne(RecordId.of(scope, prefix + i), fp, response);
                  }
                  return null;
                });
      }
      for (Future<?> part : parts) {
        part.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void preloadOne(RecordId id, Fingerprint fp, StoredResponse response) {
    Instant now = Instant.now();
    ClaimOutcome outcome = store.claim(new ClaimRequest(id, fp, now, LOCK, Duration.ofHours(24)));
    if (outcome instanceof ClaimOutcome.Claimed claimed) {
      store.complete(id, claimed.fence(), response, now);
    }
  }

  @Override
  public void close() {
    try {
      clear();
    } finally {
      connection.close();
      client.shutdown();
      if (replica != null) {
        replica.destroyForcibly();
      }
    }
  }

  /** A bare lock, on the same connection. */
  private final class BareLockBaseline implements Baseline {
    private final boolean waitForReplica;

    BareLockBaseline(boolean waitForReplica) {
      this.waitForReplica = waitForReplica;
    }

    @Override
    public void claimAndComplete(String scope, String key, byte[] fingerprint, byte[] response) {
      RedisCommands<byte[], byte[]> sync = connection.sync();
      byte[] k = key(scope, key);
      if ("OK".equals(sync.set(k, fingerprint, SetArgs.Builder.nx().px(LOCK.toMillis())))) {
        replicate();
        byte[] value = Arrays.copyOf(fingerprint, fingerprint.length + response.length);
        System.arraycopy(response, 0, value, fingerprint.length, response.length);
        sync.set(k, value, SetArgs.Builder.xx());
        replicate();
      }
    }

    @Override
    public byte[] replay(String scope, String key, byte[] fingerprint) {
      byte[] value = connection.sync().get(key(scope, key));
      return value != null && startsWith(value, fingerprint)
          ? Arrays.copyOfRange(value, fingerprint.length, value.length)
          : null;
    }

    @Override
    public boolean mismatch(String scope, String key, byte[] fingerprint) {
      byte[] value = connection.sync().get(key(scope, key));
      return value != null && !startsWith(value, fingerprint);
    }

    private void replicate() {
      if (waitForReplica) {
        connection.sync().waitForReplication(1, 1000);
      }
    }

    private byte[] key(String scope, String key) {
      return (prefix + ":b:" + scope + ":" + key).getBytes(StandardCharsets.UTF_8);
    }

    private boolean startsWith(byte[] value, byte[] fingerprint) {
      return value.length >= fingerprint.length
          && Arrays.equals(value, 0, fingerprint.length, fingerprint, 0, fingerprint.length);
    }
  }
}
