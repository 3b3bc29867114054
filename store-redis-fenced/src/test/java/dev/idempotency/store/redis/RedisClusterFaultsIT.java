package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.store.redis.internal.KeyLayout;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store on a Redis Cluster of the test's own (three primaries on loopback, {@link
 * RedisClusterProcesses}) when one node fails: a heartbeat whose shards on that node do not answer
 * still renews, refuses and reports the leases of the others; and after a failover the store's
 * connection, with the topology refresh docs/stores-redis.md recommends, serves the failed-over
 * slots again soon after the cluster is.
 */
@Timeout(120)
class RedisClusterFaultsIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final int SHARDS = 12;
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
  private static final KeyLayout LAYOUT = KeyLayout.of(RedisKeyStore.DEFAULT_KEY_PREFIX, SHARDS);

  @Test
  void aHeartbeatWhoseShardsOnOneNodeDoNotAnswerStillRenewsAndReportsTheOthers(@TempDir Path dir)
      throws Exception {
    // a node timeout far longer than the test: the frozen node is never marked failed, so the
    // others keep serving (no CLUSTERDOWN)
    try (RedisClusterProcesses cluster =
        RedisClusterProcesses.start(dir, 3, false, Duration.ofSeconds(60))) {
      RedisClusterClient client = cluster.client(RedisClusterProcesses.RECOMMENDED_REFRESH);
      try (StatefulRedisClusterConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        RedisKeyStore store = store(connection);
        Map<RecordId, FenceToken> presented = new HashMap<>();
        Set<RecordId> onFrozen = new HashSet<>();
        Set<RecordId> stale = new HashSet<>();
        Set<RecordId> valid = new HashSet<>();
        for (int i = 0; i < 60; i++) {
          RecordId id = RecordId.of("tenant", "k" + i);
          FenceToken fence = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
          if (nodeOf(id, 3) == 2) {
            onFrozen.add(id);
            presented.put(id, fence);
          } else if (i % 5 == 0) {
            stale.add(id); // another owner's fence: refused
            presented.put(id, FenceToken.of(fence.value() + 1));
          } else {
            valid.add(id);
            presented.put(id, fence);
          }
        }
        assertThat(onFrozen).isNotEmpty();
        assertThat(stale).isNotEmpty();

        Instant later = NOW.plusSeconds(10);
        cluster.node(2).freeze();
        PartialRenewalException e;
        try {
          e =
              catchThrowableOfType(
                  PartialRenewalException.class, () -> store.heartbeatAll(presented, later, LEASE));
        } finally {
          cluster.node(2).thaw();
        }

        assertThat(e).as("a StoreUnavailableException that says which leases").isNotNull();
        assertThat(e).isInstanceOf(StoreUnavailableException.class);
        assertThat(e.unknown())
            .as("unknown, after %s", e.getMessage())
            .containsExactlyInAnyOrderElementsOf(onFrozen);
        assertThat(e.refused()).containsExactlyInAnyOrderElementsOf(stale);
        assertThat(e.renewed()).containsExactlyInAnyOrderElementsOf(valid);
        for (RecordId id : valid) {
          assertThat(store.lookup(id).orElseThrow().leaseExpiresAt())
              .as("renewed: " + id)
              .contains(later.plus(LEASE));
        }
        for (RecordId id : stale) {
          assertThat(store.lookup(id).orElseThrow().leaseExpiresAt())
              .as("refused, unchanged: " + id)
              .contains(NOW.plus(LEASE));
        }
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void afterAFailoverTheRecommendedRefreshServesTheSlotSoonAfterTheClusterIsOk(@TempDir Path dir)
      throws Exception {
    Duration unavailable = unavailableAfterFailover(dir, RedisClusterProcesses.RECOMMENDED_REFRESH);
    // one periodic refresh (1 s), a command timeout (0.5 s) and room for a loaded runner; with
    // Lettuce's defaults (no periodic refresh, adaptive refreshes at most every 5 s) it took longer
    assertThat(unavailable).isLessThan(Duration.ofSeconds(4));
  }

  /**
   * Kills the primary of node 0 (its replica is node 3), waits until the surviving nodes report
   * {@code cluster_state:ok} and the replica is primary, then claims a key of a failed-over slot
   * every 100 ms until one goes through: how long after the cluster was ok.
   */
  private static Duration unavailableAfterFailover(Path dir, ClusterTopologyRefreshOptions refresh)
      throws Exception {
    try (RedisClusterProcesses cluster =
        RedisClusterProcesses.start(dir, 3, true, Duration.ofSeconds(1))) {
      RedisClusterClient client = cluster.client(refresh);
      try (StatefulRedisClusterConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        RedisKeyStore store = store(connection);
        RecordId before = idOnNode(0, 0);
        assertThat(OwnRedis.claim(store, before, NOW)).isInstanceOf(ClaimOutcome.Claimed.class);

        cluster.node(0).killDashNine();
        cluster.awaitFailover(0, 3, Duration.ofSeconds(30));
        long ok = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
          RecordId id = idOnNode(0, attempt);
          try {
            OwnRedis.claim(store, id, NOW);
            return Duration.ofNanos(System.nanoTime() - ok);
          } catch (StoreUnavailableException stillRoutedToTheDeadNode) {
            if (System.nanoTime() - ok > Duration.ofSeconds(60).toNanos()) {
              throw stillRoutedToTheDeadNode;
            }
            Thread.sleep(100);
          }
        }
      } finally {
        client.shutdown();
      }
    }
  }

  private static RedisKeyStore store(StatefulRedisClusterConnection<byte[], byte[]> connection) {
    return RedisKeyStore.builder(connection)
        .clock(RedisClock.ENGINE)
        .indexShards(SHARDS)
        .commandTimeout(COMMAND_TIMEOUT)
        .build();
  }

  /** The {@code n}th record id whose shard's slot belongs to primary {@code node}. */
  private static RecordId idOnNode(int node, int n) {
    int seen = 0;
    for (int i = 0; ; i++) {
      RecordId id = RecordId.of("tenant", "failover-" + i);
      if (nodeOf(id, 3) == node && seen++ == n) {
        return id;
      }
    }
  }

  /** Which of {@code masters} primaries (splitting the slots evenly) holds {@code id}. */
  private static int nodeOf(RecordId id, int masters) {
    int slot = SlotHash.getSlot(LAYOUT.record(KeyLayout.member(id)));
    IntPredicate owns = node -> slot < (node + 1) * 16384 / masters;
    for (int node = 0; ; node++) {
      if (owns.test(node)) {
        return node;
      }
    }
  }
}
