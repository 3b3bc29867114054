package dev.idempotency.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.testing.DelegatingStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The timed store keeps what the engine checks the store for. */
class TimedStoreTest {
  private final IdempotencyMetrics metrics = IdempotencyMetrics.create(new SimpleMeterRegistry());

  /** A transactional store whose phases hand the work a string for its transaction. */
  static final class StringTransactions extends DelegatingStore
      implements TransactionalKeyStore<String> {
    StringTransactions() {
      super(new InMemoryKeyStore());
    }

    @Override
    public Class<String> transactionType() {
      return String.class;
    }

    @Override
    public <R> R inPhase(
        RecordId id,
        FenceToken fence,
        RecoveryPoint next,
        Instant now,
        Duration lease,
        TransactionalWork<String, R> work)
        throws Exception {
      return work.run("phase-tx");
    }

    @Override
    public StoredResponse completeWith(
        RecordId id, FenceToken fence, Instant now, TransactionalWork<String, StoredResponse> work)
        throws Exception {
      return work.run("completion-tx");
    }

    @Override
    public Set<StoreCapability> capabilities() {
      return Set.of(StoreCapability.TRANSACTIONAL);
    }
  }

  @Test
  void aTransactionalStoreStaysTransactionalAndKeepsItsCapabilities() throws Exception {
    KeyStore timed = metrics.timed(new StringTransactions());

    assertThat(timed).isInstanceOf(TransactionalKeyStore.class);
    assertThat(timed.capabilities()).containsExactly(StoreCapability.TRANSACTIONAL);
    @SuppressWarnings("unchecked")
    TransactionalKeyStore<String> tx = (TransactionalKeyStore<String>) timed;
    assertThat(tx.transactionType()).isEqualTo(String.class);
    assertThat(
            tx.completeWith(
                    RecordId.of("s", "k"),
                    FenceToken.of(1),
                    Instant.EPOCH,
                    t -> StoredResponse.ofUtf8(200, t))
                .bodyAsUtf8())
        .isEqualTo("completion-tx");
  }

  @Test
  void aPlainStoreStaysPlain() {
    KeyStore store = new InMemoryKeyStore();
    KeyStore timed = metrics.timed(store);
    assertThat(timed).isNotInstanceOf(TransactionalKeyStore.class);
    assertThat(timed.toString()).isEqualTo(store.toString());
  }

  /** A store that lists keeps listing when timed: the decorator declares LISTING and forwards. */
  @Test
  void aListingStoreStillListsWhenTimed() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    RecordId id = RecordId.of("s", "k");
    Instant now = Instant.parse("2031-05-17T09:00:00Z");
    store.claim(
        new ClaimRequest(
            id, Fingerprint.of(new byte[] {1}), now, Duration.ofSeconds(30), Duration.ofHours(1)));
    KeyStore timed = metrics.timed(store);

    assertThat(timed.capabilities()).contains(StoreCapability.LISTING);
    assertThat(timed.list(RecordQuery.of(RecordSelection.LIVE, now, 10)).records())
        .extracting(RecordSnapshot::id)
        .containsExactly(id);
  }

  /** A timed store forwards extendRetention: the record outlives the retention it was held past. */
  @Test
  void aTimedStoreForwardsTheRetentionExtension() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    RecordId id = RecordId.of("s", "k");
    Instant now = Instant.parse("2031-05-17T09:00:00Z");
    Duration lease = Duration.ofSeconds(30);
    Duration retention = Duration.ofHours(72);
    ClaimOutcome.Claimed claimed =
        (ClaimOutcome.Claimed)
            store.claim(
                new ClaimRequest(
                    id, Fingerprint.of(new byte[] {1}), now, lease, Duration.ofHours(1)));
    KeyStore timed = metrics.timed(store);

    assertThat(timed.capabilities()).contains(StoreCapability.EXTEND_RETENTION);
    Instant pastRetention = now.plus(lease).plus(retention);
    timed.extendRetention(id, claimed.fence(), pastRetention.plus(Duration.ofDays(1)), now);
    assertThat(timed.deleteExpired(pastRetention, retention, 10)).isZero();
    assertThat(store.lookup(id)).isPresent();
  }
}
