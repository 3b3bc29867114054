package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Answer;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What becomes of a work's {@link Answer} in each lifecycle: released, stored in another form, or
 * left in flight, with the events that say so. The store that runs writes in its transactions but
 * cannot claim inside them ({@link TransactionalMemoryStore}: {@code TRANSACTIONAL} only) must keep
 * the promises of one transaction that it can.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AnswerDispositionTest {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});
  private static final StoredResponse PREVIEW = StoredResponse.ofUtf8(200, "preview");

  private final MutableClock clock = new MutableClock();
  private final InMemoryKeyStore memory = new InMemoryKeyStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private IdempotencyEngine engine;

  private IdempotencyEngine engine(KeyStore store, StoredResponsePolicy policy) {
    engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .heartbeatInterval(Duration.ofSeconds(29))
                    .storedResponsePolicy(policy)
                    .listener(events::add)
                    .build())
            .build();
    return engine;
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void steppedWorkThatAnswersReleasedGetsItsResponseAndTheKeyIsReleased() throws Exception {
    RecordId id = RecordId.of("a", "released");
    Outcome outcome =
        engine(memory, StoredResponsePolicy.storeAll())
            .execute(id, FP, Work.stepped(execution -> Answer.released(PREVIEW, "a preview")));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Executed.class,
            e -> {
              assertThat(e.response()).isEqualTo(PREVIEW);
              assertThat(e.stored()).isFalse();
            });
    assertThat(memory.lookup(id)).as("released: a retry runs anew").isEmpty();
    assertThat(events)
        .filteredOn(IdempotencyEvent.Released.class::isInstance)
        .singleElement()
        .asString()
        .contains("a preview");
  }

  /**
   * An answer not to keep (a gRPC UNAVAILABLE, say) after a recovery point committed: the key is
   * left in flight at that point, as after a failure, so that a retry resumes; storing a marker
   * would answer every retry "not stored" and never finish the work.
   */
  @Test
  void releasedAfterARecoveryPointLeavesTheKeyInFlightThereForTheRetry() throws Exception {
    RecordId id = RecordId.of("a", "released-after-point");
    IdempotencyEngine e = engine(memory, StoredResponsePolicy.storeAll());
    Outcome first =
        e.execute(
            id,
            FP,
            Work.stepped(
                execution -> {
                  execution.checkpoint(RecoveryPoint.of("charged"));
                  return Answer.released(StoredResponse.ofUtf8(503, "try later"), "not stored");
                }));

    assertThat(((Outcome.Executed) first).stored()).isFalse();
    assertThat(((Outcome.Executed) first).response().status()).isEqualTo(503);
    assertThat(memory.lookup(id).orElseThrow().state()).isEqualTo(KeyState.IN_FLIGHT);
    assertThat(events)
        .noneMatch(IdempotencyEvent.Completed.class::isInstance)
        .anyMatch(IdempotencyEvent.LeftInFlight.class::isInstance);

    clock.advance(Duration.ofMinutes(1));
    List<RecoveryPoint> resumedFrom = new CopyOnWriteArrayList<>();
    Outcome retry =
        e.execute(
            id,
            FP,
            Work.stepped(
                execution -> {
                  resumedFrom.add(execution.resumeFrom().orElseThrow());
                  return StoredResponse.ofUtf8(201, "shipped");
                }));
    assertThat(resumedFrom).containsExactly(RecoveryPoint.of("charged"));
    assertThat(((Outcome.Executed) retry).stored()).isTrue();
  }

  @Test
  void aCompletionThatCommittedIsTheAnswerWhateverTheOperationThrowsAfterIt() throws Exception {
    RecordId id = RecordId.of("a", "committed-then-threw");
    Outcome outcome =
        engine(new TransactionalMemoryStore(memory), StoredResponsePolicy.storeAll())
            .execute(
                id,
                FP,
                Work.stepped(
                    execution -> {
                      execution.completeWith(
                          Object.class, tx -> StoredResponse.ofUtf8(201, "order 1"));
                      throw new IllegalStateException("the metrics backend is down");
                    }));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Executed.class,
            e -> {
              assertThat(e.response().bodyAsUtf8()).isEqualTo("order 1");
              assertThat(e.stored()).isTrue();
            });
    assertThat(memory.lookup(id).orElseThrow().state()).isEqualTo(KeyState.COMPLETE);
    assertThat(events)
        .anyMatch(IdempotencyEvent.Completed.class::isInstance)
        .noneMatch(IdempotencyEvent.LeftInFlight.class::isInstance);
  }

  @Test
  void completeWithRefusesAReleasedAnswerAndCommitsNothing() {
    RecordId id = RecordId.of("a", "complete-released");
    IdempotencyEngine e =
        engine(new TransactionalMemoryStore(memory), StoredResponsePolicy.storeAll());
    assertThatThrownBy(
            () ->
                e.execute(
                    id,
                    FP,
                    Work.stepped(
                        execution ->
                            execution.completeWith(
                                Object.class, tx -> Answer.released(PREVIEW, "a preview")))))
        .isInstanceOf(OperationFailedException.class)
        .cause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Answer.released");
    assertThat(memory.lookup(id)).as("nothing committed, so the key was released").isEmpty();
  }

  @Test
  void inOneTransactionOnAStoreThatClaimsApartReleasesAReleasedAnswer() throws Exception {
    RecordId id = RecordId.of("a", "claim-first-released");
    Outcome outcome =
        engine(new TransactionalMemoryStore(memory), StoredResponsePolicy.storeAll())
            .execute(
                id,
                FP,
                Work.inOneTransaction(Object.class, tx -> Answer.released(PREVIEW, "a preview")));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Executed.class,
            e -> {
              assertThat(e.response()).isEqualTo(PREVIEW);
              assertThat(e.stored()).isFalse();
            });
    assertThat(memory.lookup(id)).isEmpty();
  }

  @Test
  void inOneTransactionOnAStoreThatClaimsApartAppliesThePolicy() throws Exception {
    RecordId id = RecordId.of("a", "claim-first-excluded");
    Outcome outcome =
        engine(new TransactionalMemoryStore(memory), StoredResponsePolicy.storeAllExcept(500))
            .execute(
                id,
                FP,
                Work.inOneTransaction(Object.class, tx -> StoredResponse.ofUtf8(500, "boom")));

    assertThat(((Outcome.Executed) outcome).stored()).isFalse();
    assertThat(memory.lookup(id)).as("the key stays absent, as in one transaction").isEmpty();
  }

  @Test
  void inOneTransactionOnAStoreThatClaimsApartDoesNotRunARecordAtARecoveryPoint() throws Exception {
    RecordId id = RecordId.of("a", "claim-first-resumable");
    IdempotencyEngine e =
        engine(new TransactionalMemoryStore(memory), StoredResponsePolicy.storeAll());
    assertThatThrownBy(
            () ->
                e.execute(
                    id,
                    FP,
                    Work.stepped(
                        execution -> {
                          execution.checkpoint(RecoveryPoint.of("charged"));
                          throw new IllegalStateException("a crash after the charge");
                        })))
        .isInstanceOf(OperationFailedException.class);
    clock.advance(Duration.ofMinutes(1));

    AtomicInteger runs = new AtomicInteger();
    Outcome outcome =
        e.execute(
            id,
            FP,
            Work.inOneTransaction(
                Object.class,
                tx -> {
                  runs.incrementAndGet();
                  return StoredResponse.ofUtf8(201, "charged again from the start");
                }));

    assertThat(outcome).isInstanceOf(Outcome.InFlightConflict.class);
    assertThat(runs).hasValue(0);
    assertThat(memory.lookup(id).orElseThrow().recoveryPoint())
        .contains(RecoveryPoint.of("charged"));
  }

  /** A one-transaction store that runs the work again after a retryable abort. */
  private static final class RerunningStore extends TransactionalMemoryStore {
    RerunningStore(InMemoryKeyStore delegate) {
      super(delegate);
    }

    @Override
    public Set<StoreCapability> capabilities() {
      return Set.of(StoreCapability.TRANSACTIONAL, StoreCapability.ONE_TRANSACTION);
    }

    @Override
    public long maxResponseBytes() {
      return 100;
    }

    @Override
    public OneTransactionOutcome claimAndComplete(
        ClaimRequest request, OneTransactionWork<Object> work) throws Exception {
      ClaimOutcome claim = claim(request);
      if (!(claim instanceof ClaimOutcome.Claimed won)) {
        return new OneTransactionOutcome.NotRun(claim);
      }
      work.run(new Object(), won); // the first run: aborted, rolled back
      StoredResponse response = work.run(new Object(), won); // the run that commits
      complete(request.id(), won.fence(), response, request.now());
      return new OneTransactionOutcome.Committed(won, response);
    }
  }

  @Test
  void onlyTheRunThatCommitsSaysWhetherItsAnswerWasStored() throws Exception {
    RecordId id = RecordId.of("a", "rerun");
    AtomicInteger runs = new AtomicInteger();
    Outcome outcome =
        engine(new RerunningStore(memory), StoredResponsePolicy.storeAll())
            .execute(
                id,
                FP,
                Work.inOneTransaction(
                    Object.class,
                    tx ->
                        runs.incrementAndGet() == 1
                            ? StoredResponse.ofUtf8(200, "x".repeat(500)) // over the limit
                            : StoredResponse.ofUtf8(200, "small")));

    assertThat(memory.lookup(id).orElseThrow().response().orElseThrow().bodyAsUtf8())
        .isEqualTo("small");
    assertThat(events).noneMatch(IdempotencyEvent.ResponseNotStored.class::isInstance);
    assertThat(((Outcome.Executed) outcome).stored()).isTrue();
  }
}
