package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.store.redis.internal.KeyLayout;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every script keeps to one Cluster slot: a {@code redis-server} in cluster mode, owning all 16384
 * slots, refuses a command or script whose declared keys hash to different slots ({@code
 * CROSSSLOT}), also on one node, so every method of the store running through a {@link
 * RedisClusterClient} over 16 index shards shows that each script's keys share a slot. What a
 * one-node cluster cannot show: a script touching a key it did not declare (every slot is local).
 * The store's scripts declare every key they touch, so the {@code CROSSSLOT} check covers them all.
 * The index walks of {@code findAbandoned} and {@code deleteExpired} go shard by shard: their limit
 * and order hold across shards.
 */
class ClusterSlotIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void everyMethodWorksOnAClusterAcrossIndexShards(@TempDir Path dir) throws Exception {
    try (RedisServerProcess server =
        RedisServerProcess.start(
            dir, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")) {
      assignAllSlots(server);
      RedisClusterClient client = RedisClusterClient.create(server.uri());
      client.setOptions(
          ClusterClientOptions.builder()
              .topologyRefreshOptions(RedisClusterProcesses.RECOMMENDED_REFRESH)
              .build());
      try (StatefulRedisClusterConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        RedisKeyStore store =
            RedisKeyStore.builder(connection).clock(RedisClock.ENGINE).indexShards(16).build();
        Map<RecordId, FenceToken> leases = new HashMap<>();
        for (int i = 0; i < 40; i++) {
          RecordId id = id(i);
          leases.put(id, ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence());
        }
        assertThat(store.heartbeatAll(leases, NOW, LEASE)).isEmpty();
        // lease ends one second apart, in the order of i, across the shards
        for (int i = 0; i < 40; i++) {
          store.heartbeat(id(i), leases.get(id(i)), NOW.plusSeconds(i), LEASE);
        }
        store.checkpoint(id(0), leases.get(id(0)), RecoveryPoint.of("p"), NOW, LEASE);
        store.complete(id(0), leases.get(id(0)), StoredResponse.ofUtf8(200, "x"), NOW);
        store.release(id(1), leases.get(id(1)), NOW);
        assertThat(store.lookup(id(0))).isPresent();

        Instant later = NOW.plus(Duration.ofDays(30));
        List<RecordId> oldestFive = List.of(id(2), id(3), id(4), id(5), id(6));
        KeyLayout layout = KeyLayout.of(RedisKeyStore.DEFAULT_KEY_PREFIX, 16);
        assertThat(oldestFive.stream().map(id -> layout.shardOf(KeyLayout.member(id))).distinct())
            .as("shards of the five oldest leases")
            .hasSizeGreaterThan(1);
        assertThat(store.findAbandoned(later, 5))
            .as("the five oldest leases across shards, oldest first")
            .extracting(s -> s.id())
            .containsExactlyElementsOf(oldestFive);
        assertThat(store.findAbandoned(later, 100)).hasSize(38);
        // the listing's scripts keep to one slot too: 38 abandoned, 7 a page, each once
        List<RecordId> listed = new ArrayList<>();
        RecordQuery query = RecordQuery.of(RecordSelection.ABANDONED, later, 7);
        for (int pages = 0; pages < 60; pages++) {
          RecordPage page = store.list(query);
          assertThat(page.records()).hasSizeLessThanOrEqualTo(7);
          page.records().forEach(r -> listed.add(r.id()));
          if (page.next().isEmpty()) {
            break;
          }
          query = query.after(page.next().get());
        }
        assertThat(listed).hasSize(38).doesNotHaveDuplicates().doesNotContain(id(0), id(1));
        assertThat(store.list(RecordQuery.of(RecordSelection.COMPLETE, later, 100)).records())
            .extracting(s -> s.id())
            .containsExactly(id(0));
        // 38 in flight and 1 completed, 10 at a time across the shards
        assertThat(store.deleteExpired(later, Duration.ofDays(1), 10)).isEqualTo(10);
        assertThat(store.deleteExpired(later, Duration.ofDays(1), 10)).isEqualTo(10);
        assertThat(store.deleteExpired(later, Duration.ofDays(1), 10)).isEqualTo(10);
        assertThat(store.deleteExpired(later, Duration.ofDays(1), 10)).isEqualTo(9);
        assertThat(store.deleteExpired(later, Duration.ofDays(1), 10)).isZero();
        assertThat(store.findAbandoned(later, 100)).isEmpty();
      } finally {
        client.shutdown();
      }
    }
  }

  private static RecordId id(int i) {
    return RecordId.of("tenant", "k" + i);
  }

  static void assignAllSlots(RedisServerProcess server) throws InterruptedException {
    RedisClient plain = RedisClient.create(server.uri());
    try (StatefulRedisConnection<String, String> c = plain.connect(StringCodec.UTF8)) {
      c.sync().clusterAddSlotsRange(io.lettuce.core.Range.create(0, 16383));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!c.sync().clusterInfo().contains("cluster_state:ok")) {
        if (System.nanoTime() > deadline) {
          fail("the one-node cluster did not become ok within 20 s");
        }
        Thread.sleep(50);
      }
    } finally {
      plain.shutdown();
    }
  }
}
