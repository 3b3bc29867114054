package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every script keeps to one Cluster slot: a {@code redis-server} in cluster mode, owning all 16384
 * slots, refuses a script whose keys hash to different slots (CROSSSLOT) and a script that touches
 * a key of another slot, so every method of the store running through a {@link RedisClusterClient}
 * over many index shards shows the key layout holds.
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
      try (StatefulRedisClusterConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        RedisKeyStore store =
            RedisKeyStore.builder(connection).clock(RedisClock.ENGINE).indexShards(16).build();
        Map<RecordId, FenceToken> leases = new HashMap<>();
        for (int i = 0; i < 40; i++) {
          RecordId id = RecordId.of("tenant", "k" + i);
          leases.put(id, ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence());
        }
        assertThat(store.heartbeatAll(leases, NOW, LEASE)).isEmpty();
        RecordId first = RecordId.of("tenant", "k0");
        store.checkpoint(first, leases.get(first), RecoveryPoint.of("p"), NOW, LEASE);
        store.complete(first, leases.get(first), StoredResponse.ofUtf8(200, "x"), NOW);
        RecordId second = RecordId.of("tenant", "k1");
        store.release(second, leases.get(second), NOW);
        assertThat(store.lookup(first)).isPresent();
        Instant later = NOW.plus(Duration.ofDays(30));
        assertThat(store.findAbandoned(later, 100)).hasSize(38);
        assertThat(store.deleteExpired(later, Duration.ofDays(1), 100)).isEqualTo(39);
        assertThat(store.findAbandoned(later, 100)).isEmpty();
      } finally {
        client.shutdown();
      }
    }
  }

  private static void assignAllSlots(RedisServerProcess server) throws InterruptedException {
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
