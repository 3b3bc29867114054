package dev.idempotency.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * The code of docs/stores-redis.md, compiled here, where Lettuce is on the class path; the examples
 * module's DocSnippetsTest holds each block of the page equal to its region.
 */
final class RedisSnippets {
  private RedisSnippets() {}

  static RedisKeyStore standalone() {
    // tag::standalone[]
    RedisClient client = RedisClient.create("redis://redis.internal:6379");
    StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
    RedisKeyStore store =
        RedisKeyStore.builder(connection) // your connection; the store never closes it
            .keyPrefix("idem:") // the default
            .retention(Duration.ofHours(72)) // the engine's retention (the default)
            .build(); // reads the eviction policy; scripts load on first use
    // end::standalone[]
    return store;
  }

  static RedisKeyStore cluster() {
    // tag::cluster[]
    RedisClusterClient client =
        RedisClusterClient.create(
            Stream.of("redis://node-1:6379", "redis://node-2:6379", "redis://node-3:6379")
                .map(
                    uri ->
                        RedisURI.builder(RedisURI.create(uri))
                            .withTimeout(Duration.ofSeconds(2)) // the store's commandTimeout
                            .build())
                .toList());
    client.setOptions(
        ClusterClientOptions.builder()
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enablePeriodicRefresh(
                        Duration.ofSeconds(1)) // a failed-over slot is found within a second
                    .enableAllAdaptiveRefreshTriggers() // MOVED, ASK, reconnects, uncovered slots
                    .refreshTriggersReconnectAttempts(1) // refresh after the first failed reconnect
                    .adaptiveRefreshTriggersTimeout(
                        Duration.ofSeconds(1)) // and again a second later, not 5 s
                    .build())
            .build());
    RedisKeyStore store = RedisKeyStore.builder(client.connect(ByteArrayCodec.INSTANCE)).build();
    // end::cluster[]
    return store;
  }

  static RedisKeyStore sentinel() {
    // tag::sentinel[]
    RedisURI sentinels =
        RedisURI.Builder.sentinel("sentinel-1", 26379, "idem-primary") // the master id
            .withSentinel("sentinel-2", 26379)
            .withSentinel("sentinel-3", 26379)
            .build();
    RedisClient client = RedisClient.create();
    RedisKeyStore store =
        RedisKeyStore.builder(client.connect(ByteArrayCodec.INSTANCE, sentinels))
            .waitForReplicas( // optional: what it buys and costs is measured in deployments.md
                1, Duration.ofMillis(500), client.connect(ByteArrayCodec.INSTANCE, sentinels))
            .build();
    // end::sentinel[]
    return store;
  }
}
