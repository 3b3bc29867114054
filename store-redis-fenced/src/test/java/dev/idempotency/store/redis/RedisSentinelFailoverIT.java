package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store through Redis Sentinel ({@link RedisSentinelProcesses}: a primary, two replicas, three
 * sentinels, {@code down-after-milliseconds} 1 s) while the primary is killed with {@code kill -9}
 * under load ({@link FailoverLoad}) and the sentinels promote a replica: how many keys ran their
 * work twice, and how long callers met errors. The store's connection is a plain Lettuce connection
 * on a Sentinel URI (the sentinels and the master id), which asks a sentinel for the primary at
 * every reconnect. Replication is asynchronous: a write the killed primary acknowledged and had not
 * yet sent to the replica promoted is lost, and a key whose claim or completion is lost runs again
 * when its caller retries.
 */
@Timeout(120)
class RedisSentinelFailoverIT {
  private static final Duration DOWN_AFTER = Duration.ofSeconds(1);
  private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration WAIT = Duration.ofMillis(500);

  /** Without {@code waitForReplicas}: a write is acknowledged by the primary alone. */
  @Test
  void aPrimaryKilledUnderLoadFailsOverAndEveryKeyEndsComplete(@TempDir Path dir) throws Exception {
    FailoverLoad.Figures figures = run(dir, false);

    assertThat(figures.sideEffects()).isGreaterThanOrEqualTo(FailoverLoad.KEYS);
  }

  /**
   * With {@code waitForReplicas(1, 500 ms)}: a write is acknowledged once a replica has it too. The
   * replica that has it is not necessarily the one promoted ({@code WAIT} is not a consensus), but
   * Sentinel promotes the replica with the largest replication offset, which holds every write
   * either replica acknowledged, since both copy the same stream in order.
   */
  @Test
  @Tag("slow")
  void withReplicaAcknowledgementAPrimaryKilledUnderLoadRunsNoKeyTwice(@TempDir Path dir)
      throws Exception {
    FailoverLoad.Figures figures = run(dir, true);

    assertThat(figures.keysRunTwice()).as("%s", figures).isZero();
  }

  private static FailoverLoad.Figures run(Path dir, boolean waitForReplicas) throws Exception {
    try (RedisSentinelProcesses sentinel =
        RedisSentinelProcesses.start(dir, DOWN_AFTER, FAILOVER_TIMEOUT)) {
      RedisClient client = RedisClient.create();
      try (StatefulRedisConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE, sentinel.uri())) {
        RedisKeyStoreBuilder builder =
            RedisKeyStore.builder(connection).commandTimeout(COMMAND_TIMEOUT);
        if (waitForReplicas) {
          builder.waitForReplicas(1, WAIT, client.connect(ByteArrayCodec.INSTANCE, sentinel.uri()));
        }
        RedisKeyStore store = builder.build();
        RedisServerProcess primary = sentinel.primary();
        long[] failover = new long[1];
        FailoverLoad.Figures figures =
            FailoverLoad.run(
                "Sentinel, " + (waitForReplicas ? "waitForReplicas(1, 500 ms)" : "asynchronous"),
                store,
                () -> {
                  long killed = System.nanoTime();
                  primary.killDashNine();
                  sentinel.awaitFailover(primary, Duration.ofSeconds(30));
                  failover[0] = System.nanoTime() - killed;
                });
        System.out.printf(
            "FAILOVER Sentinel: the sentinels named a new primary %.2f s after the kill%n",
            failover[0] / 1e9);
        assertThat(sentinel.primary()).as("the primary after the failover").isNotSameAs(primary);
        return figures;
      } finally {
        client.shutdown();
      }
    }
  }
}
