package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.DelegatingStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Once the work has run, a store's failure at completion never leads to running it again within the
 * lease: a response too large for the store, or refused by it, becomes the not-stored marker; an
 * outage shorter than the lease is waited out while the lease is renewed; only an outage that
 * outlasts the lease leaves the record in flight, said by an event.
 */
@Timeout(30)
class OutcomeNeverLostTest {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {7});
  private static final RecordId ID = RecordId.of("acct", "k1");

  private final InMemoryKeyStore memory = new InMemoryKeyStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private Operation charge(int bodyBytes) {
    return execution -> {
      runs.incrementAndGet();
      return StoredResponse.of(201, Map.of("Location", List.of("/c/1")), new byte[bodyBytes]);
    };
  }

  private IdempotencyEngine engine(DelegatingStore store, Duration lease) {
    return IdempotencyEngine.builder(store)
        .config(
            IdempotencyConfig.builder()
                .lease(lease)
                .heartbeatInterval(lease.dividedBy(4))
                .listener(events::add)
                .build())
        .build();
  }

  /**
   * A not-stored marker the operation returns (a binding's, for an answer over its own limit) is
   * stored as it is, even under a policy that excludes the marker's 500: it stands for an answer
   * that ran, and a release would run the work again on the retry.
   */
  @Test
  void aMarkerTheOperationReturnsIsStoredWhateverThePolicySaysOf500() throws Exception {
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(memory)
            .config(
                IdempotencyConfig.builder()
                    .storedResponsePolicy(StoredResponsePolicy.storeAllExcept(500))
                    .build())
            .build()) {
      Operation answeredTooLarge =
          execution -> {
            runs.incrementAndGet();
            return StoredResponse.notStoredMarker(201, "the answer is over the binding's limit");
          };
      Outcome first = engine.execute(ID, FP, Work.stepped(answeredTooLarge));
      Outcome retry = engine.execute(ID, FP, Work.stepped(answeredTooLarge));

      assertThat(first).isInstanceOf(Outcome.Executed.class);
      assertThat(((Outcome.Executed) first).stored()).isTrue();
      assertThat(retry).isInstanceOf(Outcome.Replayed.class);
      assertThat(((Outcome.Replayed) retry).response().notStoredReason())
          .contains("201; the answer is over the binding's limit");
      assertThat(runs).as("the work ran once").hasValue(1);
    }
  }

  /** A response larger than the store's declared limit is replaced by the marker, never lost. */
  @Test
  void aResponseOverTheStoresLimitStoresTheMarkerAndARetryReplaysIt() throws Exception {
    DelegatingStore store =
        new DelegatingStore(memory) {
          @Override
          public long maxResponseBytes() {
            return 1_000;
          }
        };
    try (IdempotencyEngine engine = engine(store, Duration.ofSeconds(30))) {
      Outcome first = engine.execute(ID, FP, Work.stepped(charge(5_000)));
      Outcome retry = engine.execute(ID, FP, Work.stepped(charge(5_000)));

      assertThat(first).isInstanceOf(Outcome.Executed.class);
      Outcome.Executed executed = (Outcome.Executed) first;
      assertThat(executed.response().bodyLength())
          .as("the caller gets its response")
          .isEqualTo(5_000);
      assertThat(executed.stored()).isFalse();
      assertThat(retry).isInstanceOf(Outcome.Replayed.class);
      StoredResponse marker = ((Outcome.Replayed) retry).response();
      assertThat(marker.notStoredReason()).get().asString().startsWith("201; ").contains("1000");
      assertThat(runs).as("the work ran once").hasValue(1);
      assertThat(events)
          .filteredOn(IdempotencyEvent.ResponseNotStored.class::isInstance)
          .hasSize(1);
    }
  }

  /**
   * A store that refuses the response itself (a packet too large, an item over its limit) gets the
   * small marker in its place; the work is not run again.
   */
  @Test
  void aResponseTheStoreRefusesIsReplacedByTheMarker() throws Exception {
    DelegatingStore store =
        new DelegatingStore(memory) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            if (r.notStoredReason().isEmpty()) {
              throw new KeyStoreException("Packet for query is too large");
            }
            super.complete(id, fence, r, now);
          }
        };
    try (IdempotencyEngine engine = engine(store, Duration.ofSeconds(30))) {
      Outcome first = engine.execute(ID, FP, Work.stepped(charge(10)));
      Outcome retry = engine.execute(ID, FP, Work.stepped(charge(10)));

      assertThat(first).isInstanceOf(Outcome.Executed.class);
      assertThat(((Outcome.Executed) first).stored()).isFalse();
      assertThat(((Outcome.Replayed) retry).response().notStoredReason())
          .get()
          .asString()
          .contains("Packet for query is too large");
      assertThat(runs).hasValue(1);
    }
  }

  /**
   * An outage shorter than the lease: the completion is asked again until the store answers, and a
   * retry replays the stored response.
   */
  @Test
  void anOutageShorterThanTheLeaseIsWaitedOut() throws Exception {
    AtomicInteger refusals = new AtomicInteger(4);
    DelegatingStore store =
        new DelegatingStore(memory) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            if (refusals.getAndDecrement() > 0) {
              throw new StoreUnavailableException("connection refused");
            }
            super.complete(id, fence, r, now);
          }
        };
    try (IdempotencyEngine engine = engine(store, Duration.ofSeconds(10))) {
      Outcome first = engine.execute(ID, FP, Work.stepped(charge(10)));
      Outcome retry = engine.execute(ID, FP, Work.stepped(charge(10)));

      assertThat(((Outcome.Executed) first).stored()).isTrue();
      assertThat(retry).isInstanceOf(Outcome.Replayed.class);
      assertThat(((Outcome.Replayed) retry).response().notStoredReason()).isEmpty();
      assertThat(runs).hasValue(1);
      assertThat(events).filteredOn(IdempotencyEvent.Completed.class::isInstance).hasSize(1);
      assertThat(events).noneMatch(IdempotencyEvent.CompletionFailed.class::isInstance);
    }
  }

  /**
   * A completion that committed although its answer was lost (a frozen database runs the statement
   * when it wakes, after the call timed out): the retry is refused, since the record is complete,
   * but under the owner's own fence, so the caller gets its response and no LeaseLost is said. Also
   * when the earlier attempt committed the marker.
   */
  @Test
  void aCompletionThatCommittedBeforeItsAnswerWasLostIsTheOwnersOwn() throws Exception {
    for (int bodyBytes : new int[] {10, 200_000}) {
      events.clear();
      RecordId id = RecordId.of("acct", "answer-lost-" + bodyBytes);
      AtomicInteger answersLost = new AtomicInteger(1);
      AtomicInteger slowReads = new AtomicInteger(2);
      DelegatingStore store =
          new DelegatingStore(memory) {
            @Override
            public void complete(RecordId rid, FenceToken fence, StoredResponse r, Instant now) {
              super.complete(rid, fence, r, now);
              if (answersLost.getAndDecrement() > 0) {
                throw new StoreUnavailableException("read timed out (the commit went through)");
              }
            }

            // the store that answered late answers the owner's read late too, twice
            @Override
            public java.util.Optional<dev.idempotency.spi.RecordSnapshot> lookup(RecordId rid) {
              if (rid.equals(id) && answersLost.get() <= 0 && slowReads.getAndDecrement() > 0) {
                throw new StoreUnavailableException("read timed out");
              }
              return super.lookup(rid);
            }

            @Override
            public long maxResponseBytes() {
              return 100_000;
            }
          };
      try (IdempotencyEngine engine = engine(store, Duration.ofSeconds(10))) {
        Outcome first = engine.execute(id, FP, Work.stepped(charge(bodyBytes)));
        Outcome retry = engine.execute(id, FP, Work.stepped(charge(bodyBytes)));

        assertThat(first).as("body of %d bytes", bodyBytes).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) first).stored())
            .as("the response itself stored, for the body of %d bytes", bodyBytes)
            .isEqualTo(bodyBytes <= 100_000);
        assertThat(retry).isInstanceOf(Outcome.Replayed.class);
        assertThat(((Outcome.Replayed) retry).response().notStoredReason().isPresent())
            .as("a marker replayed for the body of %d bytes", bodyBytes)
            .isEqualTo(bodyBytes > 100_000);
        assertThat(events).noneMatch(IdempotencyEvent.LeaseLost.class::isInstance);
        assertThat(events)
            .filteredOn(
                e ->
                    e instanceof IdempotencyEvent.Completed
                        || e instanceof IdempotencyEvent.ResponseNotStored)
            .hasSize(1);
      }
    }
    assertThat(runs).hasValue(2);
  }

  /**
   * The lease keeps being renewed while the completion is retried: an operation that used most of
   * its lease and then meets an outage still gets its completion in, and a retry that comes after
   * the lease it started with would have ended finds the key in flight, not abandoned.
   */
  @Test
  void theLeaseIsRenewedWhileTheCompletionIsRetried() throws Exception {
    Duration lease = Duration.ofMillis(1000);
    CountDownLatch outageOver = new CountDownLatch(1);
    AtomicLong renewalsDuringOutage = new AtomicLong();
    DelegatingStore store =
        new DelegatingStore(memory) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            if (outageOver.getCount() > 0) {
              throw new StoreUnavailableException("the store's primary is failing over");
            }
            super.complete(id, fence, r, now);
          }

          @Override
          public Set<RecordId> heartbeatAll(
              Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
            if (outageOver.getCount() > 0) {
              renewalsDuringOutage.incrementAndGet();
            }
            return super.heartbeatAll(leases, now, lease);
          }
        };
    try (IdempotencyEngine engine = engine(store, lease)) {
      Thread owner =
          new Thread(
              () -> {
                try {
                  engine.execute(
                      ID,
                      FP,
                      Work.stepped(
                          execution -> {
                            runs.incrementAndGet();
                            Thread.sleep(700); // most of the lease
                            return StoredResponse.ofUtf8(201, "charged");
                          }));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      owner.start();
      Thread.sleep(1_200); // past the end of the lease the claim took
      ClaimOutcome retryDuringOutage =
          memory.claim(new ClaimRequest(ID, FP, Instant.now(), lease, Duration.ofHours(1)));
      outageOver.countDown();
      owner.join(TimeUnit.SECONDS.toMillis(10));

      assertThat(retryDuringOutage)
          .as("a retry after the first lease, while the completion is retried")
          .isInstanceOf(ClaimOutcome.InFlight.class);
      assertThat(renewalsDuringOutage.get()).isPositive();
      assertThat(engine.execute(ID, FP, Work.stepped(charge(10))))
          .isInstanceOf(Outcome.Replayed.class);
      assertThat(runs).hasValue(1);
    }
  }

  /**
   * An outage longer than the lease: the completion gives up when the lease runs short, the caller
   * still gets its response, the record stays in flight, and the event says the work may run again.
   */
  @Test
  void anOutageLongerThanTheLeaseLeavesTheRecordInFlightAndSaysSo() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    DelegatingStore store =
        new DelegatingStore(memory) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            attempts.incrementAndGet();
            throw new StoreUnavailableException("connection refused");
          }

          @Override
          public Set<RecordId> heartbeatAll(
              Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
            throw new StoreUnavailableException("connection refused");
          }
        };
    Duration lease = Duration.ofMillis(600);
    try (IdempotencyEngine engine = engine(store, lease)) {
      long start = System.nanoTime();
      Outcome first = engine.execute(ID, FP, Work.stepped(charge(10)));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(((Outcome.Executed) first).response().bodyLength()).isEqualTo(10);
      assertThat(((Outcome.Executed) first).stored()).isFalse();
      assertThat(attempts.get()).as("completion attempts").isGreaterThan(2);
      assertThat(took).as("given up within the lease").isLessThan(lease.multipliedBy(3));
      assertThat(memory.lookup(ID)).get().extracting(r -> r.state()).isEqualTo(KeyState.IN_FLIGHT);
      assertThat(events)
          .filteredOn(IdempotencyEvent.CompletionFailed.class::isInstance)
          .singleElement()
          .satisfies(
              e ->
                  assertThat(((IdempotencyEvent.CompletionFailed) e).attempts())
                      .isEqualTo(attempts.get()));
      assertThat(events).noneMatch(IdempotencyEvent.StoreUnavailable.class::isInstance);
    }
  }

  /**
   * A renewal refused because the owner's own completion landed while it was under way is not a
   * lost lease: no {@code LeaseLost} event, no owner told.
   */
  @Test
  void aRenewalRefusedByTheOwnersOwnCompletionIsNotALostLease() throws Exception {
    CountDownLatch completed = new CountDownLatch(1);
    CountDownLatch renewalAnswered = new CountDownLatch(1);
    DelegatingStore store =
        new DelegatingStore(memory) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            super.complete(id, fence, r, now);
            completed.countDown();
            try {
              // the owner is still registered for renewals: the renewal's refusal lands now
              renewalAnswered.await(5, TimeUnit.SECONDS);
              Thread.sleep(100);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public Set<RecordId> heartbeatAll(
              Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
            try {
              completed.await(5, TimeUnit.SECONDS); // sent before, answered after the completion
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            Set<RecordId> refused = super.heartbeatAll(leases, now, lease);
            if (!refused.isEmpty()) {
              renewalAnswered.countDown();
            }
            return refused;
          }
        };
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(InstantSource.system())
                    .lease(Duration.ofSeconds(3))
                    .heartbeatInterval(Duration.ofMillis(50))
                    .listener(events::add)
                    .build())
            .build()) {
      Outcome outcome =
          engine.execute(
              ID,
              FP,
              Work.stepped(
                  execution -> {
                    Thread.sleep(120); // a renewal is under way when the work ends
                    return StoredResponse.ofUtf8(201, "ok");
                  }));

      assertThat(renewalAnswered.await(5, TimeUnit.SECONDS)).as("a renewal was refused").isTrue();
      assertThat(((Outcome.Executed) outcome).stored()).isTrue();
      assertThat(events).noneMatch(IdempotencyEvent.LeaseLost.class::isInstance);
    }
  }

  /**
   * The same race on the transactional path: the store commits the completion with the work's
   * writes and returns some time later. Renewals leave the record alone until the engine has learnt
   * of the completion (the phase it opened around the call is still open); a renewal in that gap
   * would be refused, the record being complete, and read as a lost lease.
   */
  @Test
  void noRenewalReachesACompletionCommittedButNotYetReturned() throws Exception {
    CountDownLatch committed = new CountDownLatch(1);
    CountDownLatch ticksAfterCommit = new CountDownLatch(3);
    List<Set<RecordId>> renewedAfterCommit = new CopyOnWriteArrayList<>();
    class GapStore extends TransactionalMemoryStore {
      GapStore() {
        super(memory);
      }

      @Override
      public StoredResponse completeWith(
          RecordId id,
          FenceToken fence,
          Instant now,
          TransactionalWork<Object, StoredResponse> work)
          throws Exception {
        StoredResponse response = super.completeWith(id, fence, now, work);
        committed.countDown();
        // renewal ticks pass while the committed completion has not returned yet
        assertThat(ticksAfterCommit.await(5, TimeUnit.SECONDS)).isTrue();
        return response;
      }

      @Override
      public Set<RecordId> heartbeatAll(
          Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
        if (committed.getCount() == 0) {
          renewedAfterCommit.add(Set.copyOf(leases.keySet()));
          ticksAfterCommit.countDown();
        }
        return super.heartbeatAll(leases, now, lease);
      }
    }
    GapStore store = new GapStore();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .lease(Duration.ofSeconds(3))
                    .heartbeatInterval(Duration.ofMillis(50))
                    .listener(events::add)
                    .build())
            .build()) {
      // a second operation keeps the renewal ticks coming while the first one's completion is open
      CountDownLatch done = new CountDownLatch(1);
      Thread other =
          new Thread(
              () -> {
                try {
                  engine.execute(
                      RecordId.of("tenant-1", "other"),
                      FP,
                      Work.stepped(
                          execution -> {
                            done.await(10, TimeUnit.SECONDS);
                            return StoredResponse.ofUtf8(201, "other");
                          }));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      other.start();
      Outcome outcome =
          engine.execute(
              ID,
              FP,
              Work.stepped(
                  execution ->
                      execution.completeWith(
                          Object.class, tx -> StoredResponse.ofUtf8(201, "ok"))));
      done.countDown();
      other.join(10_000);

      assertThat(renewedAfterCommit)
          .as("renewal batches between the commit and the return")
          .hasSizeGreaterThanOrEqualTo(3)
          .allSatisfy(batch -> assertThat(batch).doesNotContain(ID));
      assertThat(((Outcome.Executed) outcome).stored()).isTrue();
      assertThat(events).noneMatch(IdempotencyEvent.LeaseLost.class::isInstance);
    }
  }
}
