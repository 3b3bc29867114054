package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code waitForReplicas}: a primary and a real replica process ({@code --replicaof}), the replica
 * frozen with {@code kill -STOP} where it must not answer. A write the replica acknowledged is on
 * the replica when the call returns; a claim it did not acknowledge is reported unavailable and
 * withdrawn, so that the retry claims it once the replica answers again; and a {@code WAIT} that
 * waits for a frozen replica delays no other call's script. One primary and replica for the class
 * (starting them and the first sync take seconds); each test has keys of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicaAcknowledgementIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(1);

  @TempDir static Path dir;
  private OwnRedis primary;
  private RedisServerProcess replica;
  private RedisClient replicaClient;
  private StatefulRedisConnection<byte[], byte[]> onReplica;
  private RedisKeyStore store;

  @BeforeAll
  void startPrimaryAndReplica() throws Exception {
    primary = new OwnRedis(Files.createDirectory(dir.resolve("primary")));
    replica =
        RedisServerProcess.start(
            Files.createDirectory(dir.resolve("replica")),
            "--replicaof",
            "127.0.0.1",
            Integer.toString(primary.server.port()));
    replicaClient = RedisClient.create(replica.uri());
    onReplica = replicaClient.connect(ByteArrayCodec.INSTANCE);
    awaitInSync(primary);
    store =
        RedisKeyStore.builder(primary.connection)
            .clock(RedisClock.ENGINE)
            .commandTimeout(Duration.ofSeconds(3))
            .waitForReplicas(1, WAIT, primary.client.connect(ByteArrayCodec.INSTANCE))
            .build();
  }

  @AfterAll
  void stop() throws Exception {
    try {
      onReplica.close();
      replicaClient.shutdown();
      replica.close(); // kill -9 ends a frozen process too
    } finally {
      primary.close();
    }
  }

  @Test
  void anAcknowledgedWriteIsOnTheReplicaWhenTheCallReturns() {
    RecordId id = RecordId.of("tenant", "replicated");
    ClaimOutcome.Claimed claimed = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);
    store.complete(id, claimed.fence(), StoredResponse.ofUtf8(201, "done"), NOW);
    RedisKeyStore replicaView = RedisKeyStore.builder(onReplica).clock(RedisClock.ENGINE).build();
    assertThat(replicaView.lookup(id))
        .as("the completion, acknowledged by the replica before complete returned")
        .hasValueSatisfying(s -> assertThat(s.state()).isEqualTo(KeyState.COMPLETE));
  }

  @Test
  void aFreshClaimTheReplicaDidNotAcknowledgeIsWithdrawnAndItsRetryClaims() throws Exception {
    RecordId id = RecordId.of("tenant", "unacknowledged");
    replica.freeze();
    try {
      assertThatThrownBy(() -> OwnRedis.claim(store, id, NOW))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("acknowledged by 0 of the 1 replicas");
      assertThat(store.lookup(id)).as("the unacknowledged claim, withdrawn").isEmpty();
    } finally {
      replica.thaw();
    }
    ClaimOutcome retry = OwnRedis.claim(store, id, NOW);
    assertThat(retry).isInstanceOf(ClaimOutcome.Claimed.class);
    assertThat(((ClaimOutcome.Claimed) retry).takeover()).isFalse();
  }

  @Test
  void aTakeoverTheReplicaDidNotAcknowledgeEndsItsLeaseAndItsRetryTakesOver() throws Exception {
    RecordId id = RecordId.of("tenant", "abandoned");
    ClaimOutcome.Claimed first = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);
    Instant later = NOW.plus(OwnRedis.LEASE);
    replica.freeze();
    try {
      assertThatThrownBy(() -> OwnRedis.claim(store, id, later))
          .isInstanceOf(StoreUnavailableException.class);
      RecordSnapshot left = store.lookup(id).orElseThrow();
      assertThat(left.state()).isEqualTo(KeyState.IN_FLIGHT);
      assertThat(left.leaseExpiresAt()).as("the withdrawn takeover's lease").contains(later);
    } finally {
      replica.thaw();
    }
    ClaimOutcome retry = OwnRedis.claim(store, id, later);
    assertThat(retry).isInstanceOf(ClaimOutcome.Claimed.class);
    ClaimOutcome.Claimed won = (ClaimOutcome.Claimed) retry;
    assertThat(won.takeover()).isTrue();
    assertThat(won.generation()).as("the request's generation, kept").isEqualTo(first.fence());
  }

  @Test
  void aWaitForAFrozenReplicaDelaysNoOtherCallsScript() throws Exception {
    RecordId waiting = RecordId.of("tenant", "waits-for-the-replica");
    RecordId renewed = RecordId.of("tenant", "renewed-meanwhile");
    ClaimOutcome.Claimed w = (ClaimOutcome.Claimed) OwnRedis.claim(store, waiting, NOW);
    ClaimOutcome.Claimed r = (ClaimOutcome.Claimed) OwnRedis.claim(store, renewed, NOW);
    RedisKeyStore observer =
        RedisKeyStore.builder(primary.client.connect(ByteArrayCodec.INSTANCE))
            .clock(RedisClock.ENGINE)
            .build(); // its connection is closed with the client
    replica.freeze();
    try {
      CompletableFuture<Void> completion =
          CompletableFuture.runAsync(
              () -> store.complete(waiting, w.fence(), StoredResponse.ofUtf8(200, "w"), NOW));
      awaitOnPrimary(observer, waiting, s -> s.state() == KeyState.COMPLETE);
      assertThat(completion).as("the completion, waiting for the frozen replica").isNotDone();

      CompletableFuture<Void> renewal =
          CompletableFuture.runAsync(
              () -> store.heartbeat(renewed, r.fence(), NOW, Duration.ofHours(1)));
      awaitOnPrimary(
          observer,
          renewed,
          s -> s.leaseExpiresAt().orElseThrow().equals(NOW.plus(Duration.ofHours(1))));
      assertThat(completion)
          .as("the completion's WAIT when the renewal's script ran: still waiting")
          .isNotDone();

      assertThatThrownBy(() -> completion.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> renewal.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(StoreUnavailableException.class);
    } finally {
      replica.thaw();
    }
  }

  /**
   * A connection that reads from replicas ({@code ReadFrom.REPLICA}) would send a plain {@code
   * HMGET} to the replica, which may be behind the primary; the store reads by script, which
   * Lettuce sends to the primary. With the replica frozen, a read routed to it would time out.
   */
  @Test
  void lookupReadsThePrimaryOnAConnectionThatReadsFromReplicas() throws Exception {
    RecordId id = RecordId.of("tenant", "read-on-the-primary");
    OwnRedis.claim(store, id, NOW);
    try (StatefulRedisMasterReplicaConnection<byte[], byte[]> readsReplicas =
        MasterReplica.connect(
            primary.client, ByteArrayCodec.INSTANCE, RedisURI.create(primary.server.uri()))) {
      readsReplicas.setReadFrom(ReadFrom.REPLICA);
      RedisKeyStore reader =
          RedisKeyStore.builder(readsReplicas)
              .clock(RedisClock.ENGINE)
              .commandTimeout(Duration.ofSeconds(1))
              .build();
      replica.freeze();
      try {
        // what a plain read does on this connection: it waits for the frozen replica
        RedisFuture<Long> plainRead = readsReplicas.async().exists(new byte[][] {{'x'}});
        assertThatThrownBy(() -> plainRead.get(500, TimeUnit.MILLISECONDS))
            .isInstanceOf(TimeoutException.class);
        assertThat(reader.lookup(id)).as("the record, read on the primary").isPresent();
      } finally {
        replica.thaw();
      }
    }
  }

  /** Polls the primary (at most 5 s, well within the 1 s WAIT only if the call is not queued). */
  private static void awaitOnPrimary(
      RedisKeyStore observer, RecordId id, Predicate<RecordSnapshot> condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!observer.lookup(id).filter(condition).isPresent()) {
      if (System.nanoTime() > deadline) {
        fail("the primary never showed the expected state of " + id);
      }
      Thread.sleep(5);
    }
  }

  /** Waits (at most 20 s) until the primary's replica acknowledged its writes. */
  private static void awaitInSync(OwnRedis primary) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    primary.connection.sync().set(new byte[] {'x'}, new byte[] {'1'});
    while (primary.connection.sync().waitForReplication(1, 100) < 1) {
      if (System.nanoTime() > deadline) {
        fail("the replica did not sync within 20 s");
      }
    }
  }
}
