package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandType;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code build()} refuses a server whose {@code maxmemory-policy} can evict the store's keys, on
 * {@code redis-server} processes of the test's own started with that policy: the index sets have no
 * expiry and every record and counter has one, so {@code allkeys-*} and {@code volatile-*} can each
 * drop some of them. A Cluster is checked on every primary; a server that refuses {@code INFO} to
 * the store's user is a {@code KeyStoreException} naming the way out.
 */
class RedisEvictionPolicyIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");

  @Test
  void aServerThatCanEvictTheStoresKeysIsRefusedAtBuild(@TempDir Path dir) throws Exception {
    try (OwnRedis redis =
        new OwnRedis(dir, "--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")) {
      assertThatThrownBy(() -> redis.store().build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("runs with maxmemory-policy allkeys-lru")
          .hasMessageContaining("CONFIG SET maxmemory-policy noeviction");

      // the default of managed services: only keys with an expiry, which are records and counters
      redis.connection.sync().configSet("maxmemory-policy", "volatile-lru");
      assertThatThrownBy(() -> redis.store().build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("maxmemory-policy volatile-lru");

      redis.connection.sync().configSet("maxmemory-policy", "noeviction");
      RedisKeyStore store = redis.store().clock(RedisClock.ENGINE).build();
      assertThat(OwnRedis.claim(store, RecordId.of("t", "k"), NOW))
          .isInstanceOf(ClaimOutcome.Claimed.class);
    }
  }

  @Test
  void aServerThatRefusesInfoToTheStoresUserNamesTheWayOut(@TempDir Path dir) throws Exception {
    try (OwnRedis redis = new OwnRedis(dir)) {
      redis
          .connection
          .sync()
          .aclSetuser(
              "store",
              AclSetuserArgs.Builder.on()
                  .addPassword("secret")
                  .allKeys()
                  .allCommands()
                  .removeCommand(CommandType.INFO));
      RedisClient client =
          RedisClient.create(
              RedisURI.builder(RedisURI.create(redis.server.uri()))
                  .withAuthentication("store", "secret")
                  .build());
      try (StatefulRedisConnection<byte[], byte[]> asStore =
          client.connect(ByteArrayCodec.INSTANCE)) {
        assertThatThrownBy(() -> RedisKeyStore.builder(asStore).build())
            .isInstanceOf(KeyStoreException.class)
            .hasMessageContaining("refused INFO memory")
            .hasMessageContaining("requireNoEviction(false)");
        RedisKeyStore store =
            RedisKeyStore.builder(asStore)
                .clock(RedisClock.ENGINE)
                .requireNoEviction(false)
                .build();
        assertThat(OwnRedis.claim(store, RecordId.of("t", "k"), NOW))
            .isInstanceOf(ClaimOutcome.Claimed.class);
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void aClusterNodeThatCanEvictIsRefusedAtBuild(@TempDir Path dir) throws Exception {
    try (RedisServerProcess node =
        RedisServerProcess.start(
            dir,
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--maxmemory",
            "64mb",
            "--maxmemory-policy",
            "allkeys-lfu")) {
      ClusterSlotIT.assignAllSlots(node);
      RedisClusterClient client = RedisClusterClient.create(node.uri());
      client.setOptions(
          ClusterClientOptions.builder()
              .topologyRefreshOptions(RedisClusterProcesses.RECOMMENDED_REFRESH)
              .build());
      try (StatefulRedisClusterConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        assertThatThrownBy(() -> RedisKeyStore.builder(connection).build())
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("127.0.0.1:" + node.port())
            .hasMessageContaining("maxmemory-policy allkeys-lfu");
      } finally {
        client.shutdown();
      }
    }
  }
}
