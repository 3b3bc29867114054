package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.store.redis.internal.KeyLayout;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store on a Redis Cluster of the test's own ({@link RedisClusterOfSix}: three primaries, a
 * replica each, {@code cluster-node-timeout} 1 s) while a primary is killed with {@code kill -9}
 * under load ({@link FailoverLoad}) and its replica takes its slots over: how many keys ran their
 * work twice, and how long callers met errors. The records spread over the Cluster's default 64
 * index shards, so about a third of the keys live on the primary killed. The connection has the
 * topology refresh docs/stores-redis.md recommends, and seed URIs whose timeout is the store's
 * command timeout: with Lettuce's default (60 s), a run whose replica was frozen around the kill
 * left callers unable to reach the failed-over slots for 59 s; with a 1 s timeout, for 1.1 s.
 * Cluster replication is asynchronous: a write the killed primary acknowledged and had not yet sent
 * to its replica is lost, and its key runs again when the caller retries.
 */
@Timeout(150)
@Tag("slow")
class RedisClusterFailoverIT {
  private static final Duration NODE_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration CUT_OFF = Duration.ofSeconds(1);

  /**
   * How long Lettuce waits for a node that does not answer, its topology refresh included: the
   * store's command timeout.
   */
  private static final Duration URI_TIMEOUT = COMMAND_TIMEOUT;

  /** An index shard's key: its primary holds a third of the records. */
  private static final byte[] SHARD =
      KeyLayout.of(RedisKeyStore.DEFAULT_KEY_PREFIX, 64).leaseIndex(0);

  @Test
  void aPrimaryKilledUnderLoadFailsOverAndEveryKeyEndsComplete(@TempDir Path dir) throws Exception {
    FailoverLoad.Figures figures = run(dir, false);

    assertThat(figures.sideEffects()).isGreaterThanOrEqualTo(FailoverLoad.KEYS);
  }

  /**
   * The replica of the primary killed cut off from it for a second before the kill, as a partition
   * would: frozen ({@code kill -STOP}, so that it cannot reconnect) and its link closed on the
   * primary ({@code CLIENT KILL TYPE replica}), then woken after the kill. The claims and
   * completions the primary acknowledged meanwhile are lost, and their keys run again.
   */
  @Test
  void aReplicaCutOffWhenItsPrimaryDiesLosesAcknowledgedWritesAndRunsKeysTwice(@TempDir Path dir)
      throws Exception {
    FailoverLoad.Figures figures = run(dir, true);

    assertThat(figures.keysRunTwice()).as("%s", figures).isPositive();
  }

  private static FailoverLoad.Figures run(Path dir, boolean cutOff) throws Exception {
    try (RedisClusterOfSix cluster = RedisClusterOfSix.start(dir, NODE_TIMEOUT)) {
      RedisClusterClient client =
          RedisClusterClient.create(
              cluster.uris().stream()
                  .map(u -> RedisURI.builder(u).withTimeout(URI_TIMEOUT).build())
                  .toList());
      client.setOptions(
          ClusterClientOptions.builder()
              .topologyRefreshOptions(RedisClusterProcesses.RECOMMENDED_REFRESH)
              .build());
      try (StatefulRedisClusterConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        RedisKeyStore store =
            RedisKeyStore.builder(connection).commandTimeout(COMMAND_TIMEOUT).build();
        RedisServerProcess primary = cluster.primaryOf(SHARD);
        RedisServerProcess replica = cluster.replicaOf(primary);
        long[] failover = new long[1];
        FailoverLoad.Figures figures =
            FailoverLoad.run(
                "Cluster, recommended topology refresh"
                    + (cutOff ? ", the replica cut off 1 s before the kill" : ""),
                store,
                () -> {
                  if (cutOff) {
                    replica.freeze();
                    long closed =
                        RedisClusterProcesses.sync(
                            primary, c -> c.clientKill(KillArgs.Builder.typeSlave()));
                    assertThat(closed).as("replica links closed").isOne();
                    Thread.sleep(CUT_OFF.toMillis());
                  }
                  long killed = System.nanoTime();
                  primary.killDashNine();
                  if (cutOff) {
                    replica.thaw();
                  }
                  cluster.awaitFailover(primary, SHARD, Duration.ofSeconds(30));
                  failover[0] = System.nanoTime() - killed;
                });
        System.out.printf(
            "FAILOVER Cluster: cluster_state:ok and the slot served again %.2f s after the kill%n",
            failover[0] / 1e9);
        return figures;
      } finally {
        client.shutdown();
      }
    }
  }
}
