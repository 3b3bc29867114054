package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.StoreUnavailableException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code waitForReplicas}: a primary and a real replica process ({@code --replicaof}). A write the
 * replica acknowledged is on the replica when the call returns; with the replica frozen ({@code
 * kill -STOP}) the claim is reported unavailable, and it stands on the primary, in flight under a
 * lease nobody holds.
 */
class ReplicaAcknowledgementIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");

  @Test
  void writesWaitForTheReplicaAndAreUnavailableWhileItDoesNotAnswer(@TempDir Path dir)
      throws Exception {
    Path p = Files.createDirectory(dir.resolve("primary"));
    Path r = Files.createDirectory(dir.resolve("replica"));
    try (OwnRedis primary = new OwnRedis(p);
        RedisServerProcess replica =
            RedisServerProcess.start(
                r, "--replicaof", "127.0.0.1", Integer.toString(primary.server.port()));
        AutoCloseable replicaClient = new ReplicaView(replica)) {
      awaitInSync(primary);
      RedisKeyStore store =
          primary
              .store()
              .clock(RedisClock.ENGINE)
              .waitForReplicas(
                  1, Duration.ofMillis(300), primary.client.connect(ByteArrayCodec.INSTANCE))
              .build();
      RecordId id = RecordId.of("tenant", "replicated");
      ClaimOutcome.Claimed claimed = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);
      store.complete(id, claimed.fence(), StoredResponse.ofUtf8(201, "done"), NOW);
      RedisKeyStore onReplica =
          RedisKeyStore.builder(((ReplicaView) replicaClient).connection)
              .clock(RedisClock.ENGINE)
              .build();
      assertThat(onReplica.lookup(id))
          .as("the completion, acknowledged by the replica before complete returned")
          .hasValueSatisfying(s -> assertThat(s.state()).isEqualTo(KeyState.COMPLETE));

      replica.freeze();
      try {
        RecordId lost = RecordId.of("tenant", "unacknowledged");
        assertThatThrownBy(() -> OwnRedis.claim(store, lost, NOW))
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("acknowledged by 0 of the 1 replicas");
        assertThat(store.lookup(lost))
            .as("the unacknowledged claim stands on the primary")
            .hasValueSatisfying(s -> assertThat(s.state()).isEqualTo(KeyState.IN_FLIGHT));
      } finally {
        replica.thaw();
      }
    }
  }

  @Test
  void aClusterConnectionRefusesWaitForReplicas() {
    assertThatThrownBy(
            () ->
                RedisKeyStore.builder(
                        (io.lettuce.core.cluster.api.StatefulRedisClusterConnection<byte[], byte[]>)
                            java.lang.reflect.Proxy.newProxyInstance(
                                getClass().getClassLoader(),
                                new Class<?>[] {
                                  io.lettuce.core.cluster.api.StatefulRedisClusterConnection.class
                                },
                                (proxy, method, args) -> null))
                    .waitForReplicas(1, Duration.ofSeconds(1), null)
                    .build())
        .isInstanceOf(IllegalStateException.class);
  }

  /** Waits (at most 20 s) until the primary's replica acknowledged its writes. */
  private static void awaitInSync(OwnRedis primary) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    primary.connection.sync().set(new byte[] {'x'}, new byte[] {'1'});
    while (primary.connection.sync().waitForReplication(1, 100) < 1) {
      if (System.nanoTime() > deadline) {
        fail("the replica did not sync within 20 s");
      }
    }
  }

  /** A client and connection to the replica, closed together. */
  private static final class ReplicaView implements AutoCloseable {
    final RedisClient client;
    final StatefulRedisConnection<byte[], byte[]> connection;

    ReplicaView(RedisServerProcess replica) {
      client = RedisClient.create(replica.uri());
      connection = client.connect(ByteArrayCodec.INSTANCE);
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown();
    }
  }
}
