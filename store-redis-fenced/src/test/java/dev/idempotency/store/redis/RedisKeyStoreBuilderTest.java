package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.lang.reflect.Proxy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The builder's checks of settings that only make sense together, without a server: the connections
 * are stand-ins that answer nothing, so the stores built here do not read the server's eviction
 * policy ({@code requireNoEviction(false)}; {@code RedisEvictionPolicyIT} reads it).
 */
class RedisKeyStoreBuilderTest {
  @Test
  void waitForReplicasNeedsAConnectionOfItsOwn() {
    StatefulRedisConnection<byte[], byte[]> connection = standalone();
    assertThatThrownBy(
            () ->
                RedisKeyStore.builder(connection)
                    .waitForReplicas(1, Duration.ofMillis(500), connection)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a connection of its own");
  }

  @Test
  void waitForReplicasTimeoutMustBeShorterThanTheCommandTimeout() {
    assertThatThrownBy(
            () ->
                RedisKeyStore.builder(standalone())
                    .commandTimeout(Duration.ofSeconds(2))
                    .waitForReplicas(1, Duration.ofSeconds(2), standalone())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("PT2S")
        .hasMessageContaining("shorter than the command timeout");
  }

  @Test
  void aClusterConnectionRefusesWaitForReplicas() {
    assertThatThrownBy(
            () ->
                RedisKeyStore.builder(cluster())
                    .waitForReplicas(1, Duration.ofSeconds(1), standalone())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("standalone or Sentinel");
  }

  @Test
  void theResponseLimitFollowsTheCommandTimeout() {
    assertThat(
            RedisKeyStore.builder(standalone()).requireNoEviction(false).build().maxResponseBytes())
        .as("2 s at 2 MiB a second")
        .isEqualTo(4L << 20);
    assertThat(
            RedisKeyStore.builder(standalone())
                .commandTimeout(Duration.ofMillis(500))
                .requireNoEviction(false)
                .build()
                .maxResponseBytes())
        .isEqualTo(1L << 20);
    assertThat(
            RedisKeyStore.builder(standalone())
                .maxResponseBytes(100_000)
                .requireNoEviction(false)
                .build()
                .maxResponseBytes())
        .as("a smaller limit of its own")
        .isEqualTo(100_000);
  }

  @Test
  void aResponseLimitTheStoreCannotReplayWithinItsCommandTimeoutIsRefused() {
    assertThatThrownBy(
            () -> RedisKeyStore.builder(standalone()).maxResponseBytes(64L << 20).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("maxResponseBytes (67108864)")
        .hasMessageContaining("commandTimeout (PT2S")
        .hasMessageContaining("raise commandTimeout to at least PT32S");
    assertThatThrownBy(
            () ->
                RedisKeyStore.builder(standalone())
                    .commandTimeout(Duration.ofMinutes(10))
                    .maxResponseBytes(1L << 30)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at most 512 MiB (Redis' proto-max-bulk-len)");
  }

  @SuppressWarnings("unchecked")
  private static StatefulRedisConnection<byte[], byte[]> standalone() {
    return (StatefulRedisConnection<byte[], byte[]>) standIn(StatefulRedisConnection.class);
  }

  @SuppressWarnings("unchecked")
  private static StatefulRedisClusterConnection<byte[], byte[]> cluster() {
    return (StatefulRedisClusterConnection<byte[], byte[]>)
        standIn(StatefulRedisClusterConnection.class);
  }

  private static Object standIn(Class<?> type) {
    return Proxy.newProxyInstance(
        RedisKeyStoreBuilderTest.class.getClassLoader(),
        new Class<?>[] {type},
        (proxy, method, args) ->
            switch (method.getName()) {
              case "equals" -> proxy == args[0];
              case "hashCode" -> System.identityHashCode(proxy);
              default -> null;
            });
  }
}
