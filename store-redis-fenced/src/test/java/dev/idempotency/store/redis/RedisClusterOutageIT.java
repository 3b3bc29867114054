package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.store.redis.internal.KeyLayout;
import dev.idempotency.testing.CompletionOutageGate;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outage gate ({@link CompletionOutageGate}) on a Redis Cluster of the test's own ({@link
 * RedisClusterOfSix}: three primaries, a replica each, {@code cluster-node-timeout} 2 s): the
 * primary that serves the gate's keys is killed with {@code kill -9} while the owners store their
 * responses, its replica takes over, and a failover shorter than the lease runs each key's work
 * once. The three application instances ({@link GateInstance}) connect with the topology refresh
 * docs/stores-redis.md recommends, and keep every record in one index shard, so that all the keys
 * live in one slot, on the primary killed. The fault ends when the surviving nodes report {@code
 * cluster_state:ok} and another primary serves the slot.
 */
@Timeout(150)
class RedisClusterOutageIT {
  private static final int KEYS = 20;
  private static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

  /** The key of the one index shard: its slot is every record's. */
  private static final byte[] SHARD =
      KeyLayout.of(RedisKeyStore.DEFAULT_KEY_PREFIX, 1).leaseIndex(0);

  /** A 15 s lease renewed every 3 s: the engine outlasts an outage of up to 10.5 s. */
  @Test
  void aPrimaryKilledWhileTheResponsesAreStoredFailsOverAndRunsEachKeyOnce(@TempDir Path dir)
      throws Exception {
    Run run = killPrimary(dir, Duration.ofSeconds(15), Duration.ofSeconds(3), "lease 15 s");

    RedisCompletionOutageIT.assertGateHolds(run.result(), run.figures());
  }

  /**
   * The same failover under a 2 s lease (renewed every 667 ms): the completions give up before the
   * slot has a primary again, the records stay in flight, and the duplicates take them over once
   * their leases end and run the work again. Shows that the gate catches it.
   */
  @Test
  @Tag("slow")
  void aFailoverLongerThanTheLeaseRunsKeysTwice(@TempDir Path dir) throws Exception {
    Run run = killPrimary(dir, Duration.ofSeconds(2), Duration.ofMillis(667), "lease 2 s");

    assertThat(run.result().keysRunTwice()).as("%s", run.result()).isPositive();
    assertThat(run.result().keysNeverRun()).as("%s", run.result()).isZero();
  }

  private record Run(CompletionOutageGate.Result result, GateFigures figures) {}

  private static Run killPrimary(Path dir, Duration lease, Duration heartbeat, String what)
      throws Exception {
    try (RedisClusterOfSix cluster = RedisClusterOfSix.start(dir, NODE_TIMEOUT)) {
      RedisServerProcess primary = cluster.primaryOf(SHARD);
      GateFigures figures = new GateFigures();
      CompletionOutageGate.Result result =
          figures.run(
              "Redis Cluster, primary killed, " + what,
              listener ->
                  GateInstance.cluster(cluster.uris(), COMMAND_TIMEOUT, lease, heartbeat, listener),
              KEYS,
              figures.fault(
                  primary::killDashNine,
                  () -> cluster.awaitFailover(primary, SHARD, Duration.ofSeconds(30))),
              Duration.ZERO,
              lease.plusSeconds(1));
      return new Run(result, figures);
    }
  }
}
