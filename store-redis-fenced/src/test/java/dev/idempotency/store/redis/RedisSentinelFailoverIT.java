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
 * every reconnect; so is the connection {@code waitForReplicas} waits on.
 *
 * <p>Replication is asynchronous: a write the killed primary acknowledged and had not yet sent to
 * the replica promoted is lost, and a key whose claim or completion is lost runs again when its
 * caller retries. On loopback the replicas are rarely behind, so the plain kill shows the failover
 * working, not the loss; the loss is shown by cutting both replicas off the primary for a second
 * before the kill ({@link RedisSentinelProcesses#cutOffReplicas}), as a partition, a slow link or a
 * busy host would.
 */
@Timeout(120)
class RedisSentinelFailoverIT {
  private static final Duration DOWN_AFTER = Duration.ofSeconds(1);
  private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration WAIT = Duration.ofMillis(500);
  private static final Duration CUT_OFF = Duration.ofSeconds(1);

  /** Without {@code waitForReplicas}: a write is acknowledged by the primary alone. */
  @Test
  void aPrimaryKilledUnderLoadFailsOverAndEveryKeyEndsComplete(@TempDir Path dir) throws Exception {
    FailoverLoad.Figures figures = run(dir, false, false);

    assertThat(figures.sideEffects()).isGreaterThanOrEqualTo(FailoverLoad.KEYS);
  }

  /** With {@code waitForReplicas(1, 500 ms)}, the same kill. */
  @Test
  @Tag("slow")
  void withReplicaAcknowledgementAPrimaryKilledUnderLoadFailsOverAndEveryKeyEndsComplete(
      @TempDir Path dir) throws Exception {
    FailoverLoad.Figures figures = run(dir, true, false);

    assertThat(figures.sideEffects()).isGreaterThanOrEqualTo(FailoverLoad.KEYS);
  }

  /**
   * Replicas cut off for a second when the primary dies: the claims and completions the primary
   * acknowledged meanwhile are lost, and their keys run again.
   */
  @Test
  @Tag("slow")
  void replicasCutOffWhenThePrimaryDiesLoseAcknowledgedWritesAndRunKeysTwice(@TempDir Path dir)
      throws Exception {
    FailoverLoad.Figures figures = run(dir, false, true);

    assertThat(figures.keysRunTwice()).as("%s", figures).isPositive();
  }

  /**
   * The same with {@code waitForReplicas(1, 500 ms)}: while no replica is connected, no write is
   * acknowledged (a claim is withdrawn and reported unavailable, so its work does not run), so the
   * failover loses nothing a caller acted on.
   */
  @Test
  @Tag("slow")
  void withReplicaAcknowledgementReplicasBehindWhenThePrimaryDiesRunNoKeyTwice(@TempDir Path dir)
      throws Exception {
    FailoverLoad.Figures figures = run(dir, true, true);

    assertThat(figures.keysRunTwice()).as("%s", figures).isZero();
  }

  private static FailoverLoad.Figures run(Path dir, boolean waitForReplicas, boolean cutOff)
      throws Exception {
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
                "Sentinel, "
                    + (waitForReplicas ? "waitForReplicas(1, 500 ms)" : "asynchronous")
                    + (cutOff ? ", replicas cut off 1 s before the kill" : ""),
                store,
                () -> {
                  if (cutOff) {
                    sentinel.cutOffReplicas();
                    Thread.sleep(CUT_OFF.toMillis());
                  }
                  long killed = System.nanoTime();
                  primary.killDashNine();
                  if (cutOff) {
                    sentinel.thawReplicas();
                  }
                  sentinel.awaitFailover(primary, Duration.ofSeconds(30));
                  failover[0] = System.nanoTime() - killed;
                });
        System.out.printf(
            "FAILOVER Sentinel: every sentinel named a new primary %.2f s after the kill%n",
            failover[0] / 1e9);
        assertThat(sentinel.primary()).as("the primary after the failover").isNotSameAs(primary);
        return figures;
      } finally {
        client.shutdown();
      }
    }
  }
}
