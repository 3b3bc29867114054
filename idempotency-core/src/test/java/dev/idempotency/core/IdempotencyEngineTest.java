package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotencyEngineTest {
  private static final RecordId ID = RecordId.of("acct-1", "order-confirm-42");
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});
  private static final Fingerprint OTHER_FP = Fingerprint.of(new byte[] {2});
  private static final StoredResponse CREATED = StoredResponse.ofUtf8(201, "{\"charge\":\"ch_1\"}");

  private final MutableClock clock = new MutableClock();
  private final InMemoryKeyStore store = new InMemoryKeyStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  // heartbeats far apart in real time, so that only the tests about heartbeats see one
  private final IdempotencyEngine engine =
      IdempotencyEngine.builder(store)
          .config(
              IdempotencyConfig.builder()
                  .clock(clock)
                  .heartbeatInterval(Duration.ofSeconds(29))
                  .listener(events::add)
                  .build())
          .build();
  private final AtomicInteger sideEffects = new AtomicInteger();
  // a thread per concurrent request: CompletableFuture's default executor may have one thread on a
  // two-core machine, so a request blocked in its operation would keep the next from starting
  private final ExecutorService async = Executors.newCachedThreadPool();

  @AfterEach
  void close() {
    engine.close();
    async.shutdownNow();
  }

  private Operation charge() {
    return execution -> {
      sideEffects.incrementAndGet();
      return CREATED;
    };
  }

  /**
   * The first request runs the operation; a retry replays the stored response without running it
   * again.
   */
  @Test
  void executesOnceThenReplaysVerbatim() throws Exception {
    Outcome first = engine.execute(ID, FP, Work.stepped(charge()));
    Outcome retry = engine.execute(ID, FP, Work.stepped(charge()));

    assertThat(first)
        .isInstanceOfSatisfying(
            Outcome.Executed.class,
            e -> {
              assertThat(e.response()).isEqualTo(CREATED);
              assertThat(e.stored()).isTrue();
            });
    assertThat(retry)
        .isInstanceOfSatisfying(
            Outcome.Replayed.class, r -> assertThat(r.response().body()).isEqualTo(CREATED.body()));
    assertThat(sideEffects).hasValue(1);
    assertThat(events)
        .extracting(Object::getClass)
        .containsExactly(
            IdempotencyEvent.Claimed.class,
            IdempotencyEvent.Completed.class,
            IdempotencyEvent.Replayed.class);
  }

  @Test
  void sameKeyWithAnotherPayloadIsAMismatchAndNeverReplays() throws Exception {
    engine.execute(ID, FP, Work.stepped(charge()));
    Outcome reused = engine.execute(ID, OTHER_FP, Work.stepped(charge()));
    assertThat(reused).isEqualTo(new Outcome.Mismatch(KeyState.COMPLETE));
    assertThat(sideEffects).hasValue(1);
  }

  /** Stored failures replay verbatim (Stripe v1): a 500 the handler returned is not re-run. */
  @Test
  void storedFailuresReplayVerbatimByDefault() throws Exception {
    engine.execute(
        ID,
        FP,
        Work.stepped(
            execution -> {
              sideEffects.incrementAndGet();
              return StoredResponse.ofUtf8(500, "boom");
            }));
    Outcome retry = engine.execute(ID, FP, Work.stepped(charge()));
    assertThat(retry)
        .isInstanceOfSatisfying(
            Outcome.Replayed.class, r -> assertThat(r.response().status()).isEqualTo(500));
    assertThat(sideEffects).hasValue(1);
  }

  @Test
  void aStatusThePolicyExcludesReleasesTheKey() throws Exception {
    try (IdempotencyEngine no429 =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .storedResponsePolicy(StoredResponsePolicy.storeAllExcept(429))
                    .build())
            .build()) {
      Outcome throttled =
          no429.execute(ID, FP, Work.stepped(execution -> StoredResponse.ofUtf8(429, "slow down")));
      assertThat(throttled)
          .isInstanceOfSatisfying(Outcome.Executed.class, e -> assertThat(e.stored()).isFalse());
      assertThat(store.lookup(ID)).isEmpty();
      assertThat(no429.execute(ID, FP, Work.stepped(charge())))
          .isInstanceOf(Outcome.Executed.class);
      assertThat(sideEffects).hasValue(1);
    }
  }

  /**
   * A handler that threw before committing anything changed nothing: its key is released and a
   * retry runs.
   */
  @Test
  void anOperationThatThrowsBeforeAnyPhaseReleasesTheKey() throws Exception {
    OperationFailedException e =
        catchThrowableOfType(
            OperationFailedException.class,
            () ->
                engine.execute(
                    ID,
                    FP,
                    Work.stepped(
                        execution -> {
                          throw new IllegalStateException("downstream refused");
                        })));
    assertThat(e.keyReleased()).isTrue();
    assertThat(e.getCause()).hasMessage("downstream refused");
    assertThat(engine.execute(ID, FP, Work.stepped(charge()))).isInstanceOf(Outcome.Executed.class);
    assertThat(sideEffects).hasValue(1);
  }

  /**
   * A request that committed a phase and then failed stays in flight; after its lease a retry takes
   * it over and resumes from the recovery point, so the finished phase does not run twice and the
   * downstream key is reused.
   */
  @Test
  void aFailureAfterACheckpointIsResumedFromTheRecoveryPoint() throws Exception {
    AtomicInteger chargesSent = new AtomicInteger();
    List<String> downstreamKeys = new CopyOnWriteArrayList<>();
    Operation twoPhases =
        execution -> {
          String chargeKey = execution.downstreamKey("charge").value();
          downstreamKeys.add(chargeKey);
          if (execution.resumeFrom().isEmpty()) {
            chargesSent.incrementAndGet();
            execution.checkpoint(RecoveryPoint.of("charge-sent", chargeKey.getBytes()));
            if (downstreamKeys.size() == 1) {
              throw new java.io.IOException("connection reset after the charge");
            }
          }
          assertThat(execution.resumeFrom()).map(RecoveryPoint::name).contains("charge-sent");
          return CREATED;
        };

    OperationFailedException failure =
        catchThrowableOfType(
            OperationFailedException.class, () -> engine.execute(ID, FP, Work.stepped(twoPhases)));
    assertThat(failure.keyReleased()).isFalse();
    assertThat(engine.execute(ID, FP, Work.stepped(twoPhases)))
        .isInstanceOf(Outcome.InFlightConflict.class);

    clock.advance(Duration.ofSeconds(31));
    Outcome resumed = engine.execute(ID, FP, Work.stepped(twoPhases));

    assertThat(resumed)
        .isInstanceOfSatisfying(Outcome.Executed.class, e -> assertThat(e.resumed()).isTrue());
    assertThat(chargesSent).hasValue(1);
    assertThat(downstreamKeys).hasSize(2).containsOnly(downstreamKeys.get(0));
    assertThat(events)
        .hasAtLeastOneElementOfType(IdempotencyEvent.LeftInFlight.class)
        .hasAtLeastOneElementOfType(IdempotencyEvent.TakenOver.class);
  }

  /**
   * A checkpoint whose store call failed may still have committed: the key is not released, so the
   * next owner resumes from what did commit instead of running the phase again.
   */
  @Test
  void aStoreFailureDuringACheckpointLeavesTheKeyInFlight() throws Exception {
    DelegatingStore flaky =
        new DelegatingStore(store) {
          @Override
          public void checkpoint(
              RecordId id,
              dev.idempotency.FenceToken fence,
              RecoveryPoint point,
              java.time.Instant now,
              Duration lease) {
            super.checkpoint(id, fence, point, now, lease); // it committed...
            throw new StoreUnavailableException(
                "connection reset while reading the commit's answer"); // ...unheard
          }
        };
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(flaky)
            .config(IdempotencyConfig.builder().clock(clock).build())
            .build()) {
      OperationFailedException e =
          catchThrowableOfType(
              OperationFailedException.class,
              () ->
                  engine.execute(
                      ID,
                      FP,
                      Work.stepped(
                          execution -> {
                            execution.checkpoint(RecoveryPoint.of("charged"));
                            return CREATED;
                          })));
      assertThat(e.keyReleased()).isFalse();
      assertThat(store.lookup(ID))
          .get()
          .satisfies(
              r -> {
                assertThat(r.state()).isEqualTo(KeyState.IN_FLIGHT);
                assertThat(r.recoveryPoint()).map(RecoveryPoint::name).contains("charged");
              });
    }
  }

  /**
   * A second request while the first runs gets the conflict at once, with the configured
   * Retry-After (1 s by default), not the whole remaining lease.
   */
  @Test
  void aConcurrentRequestGetsTheInFlightConflict() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<Outcome> first =
        CompletableFuture.supplyAsync(
            () ->
                call(
                    execution -> {
                      running.countDown();
                      finish.await();
                      return CREATED;
                    }),
            async);
    running.await();
    Outcome second = engine.execute(ID, FP, Work.stepped(charge()));
    finish.countDown();

    assertThat(second).isEqualTo(new Outcome.InFlightConflict(Duration.ofSeconds(1)));
    assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
    assertThat(sideEffects).hasValue(0);
  }

  /** With a bounded wait, the second request gets the first one's response once it completes. */
  @Test
  void aBoundedWaitReturnsTheReplayWhenTheOwnerCompletes() throws Exception {
    // the waiting engine's claims, and what each returned: the signal that it is polling a record
    // still in flight
    BlockingQueue<ClaimOutcome> polls = new LinkedBlockingQueue<>();
    KeyStore observed =
        new DelegatingStore(store) {
          @Override
          public ClaimOutcome claim(ClaimRequest request) {
            ClaimOutcome outcome = super.claim(request);
            polls.add(outcome);
            return outcome;
          }
        };
    try (IdempotencyEngine waiting =
        IdempotencyEngine.builder(observed)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .inFlightPolicy(
                        InFlightPolicy.waitUpTo(Duration.ofSeconds(20), Duration.ofMillis(10)))
                    .build())
            .build()) {
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch finish = new CountDownLatch(1);
      CompletableFuture<Outcome> first =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      execution -> {
                        running.countDown();
                        finish.await();
                        return CREATED;
                      }),
              async);
      running.await();
      CompletableFuture<Outcome> second =
          CompletableFuture.supplyAsync(() -> call(waiting, charge()), async);
      for (int i = 1; i <= 2; i++) {
        assertThat(polls.poll(10, TimeUnit.SECONDS))
            .as(
                "the waiting request's claim #%d (it must poll, not give"
                    + " up or replay, while the owner runs)",
                i)
            .isInstanceOf(ClaimOutcome.InFlight.class);
      }
      assertThat(second)
          .as("the waiting request after two polls found the record in flight")
          .isNotDone();
      finish.countDown();

      assertThat(second.get(10, TimeUnit.SECONDS))
          .isInstanceOfSatisfying(
              Outcome.Replayed.class, r -> assertThat(r.response()).isEqualTo(CREATED));
      assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
      assertThat(sideEffects).hasValue(0);
    }
  }

  /** The remaining lease caps the suggested Retry-After, and it never drops below one second. */
  @Test
  void theInFlightRetryAfterIsCappedByTheLeaseAndAtLeastOneSecond() throws Exception {
    try (IdempotencyEngine slowHint =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .inFlightRetryAfter(Duration.ofSeconds(20))
                    .build())
            .build()) {
      store.claim(
          new ClaimRequest(ID, FP, clock.instant(), Duration.ofSeconds(30), Duration.ofHours(24)));
      clock.advance(Duration.ofSeconds(25));
      assertThat(slowHint.execute(ID, FP, Work.stepped(charge())))
          .isEqualTo(new Outcome.InFlightConflict(Duration.ofSeconds(5)));
      clock.advance(Duration.ofMillis(4_900));
      assertThat(slowHint.execute(ID, FP, Work.stepped(charge())))
          .isEqualTo(new Outcome.InFlightConflict(Duration.ofSeconds(1)));
    }
  }

  @Test
  void aBoundedWaitEndsInTheConflictWhenTheBoundPasses() throws Exception {
    try (IdempotencyEngine waiting =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .inFlightPolicy(
                        InFlightPolicy.waitUpTo(Duration.ofMillis(100), Duration.ofMillis(20)))
                    .listener(events::add)
                    .build())
            .build()) {
      store.claim(
          new ClaimRequest(ID, FP, clock.instant(), Duration.ofSeconds(30), Duration.ofHours(24)));
      Outcome outcome = waiting.execute(ID, FP, Work.stepped(charge()));
      assertThat(outcome).isInstanceOf(Outcome.InFlightConflict.class);
      assertThat(events)
          .filteredOn(IdempotencyEvent.InFlightConflict.class::isInstance)
          .singleElement()
          .satisfies(
              e ->
                  assertThat(((IdempotencyEvent.InFlightConflict) e).waited())
                      .isGreaterThanOrEqualTo(Duration.ofMillis(100)));
      assertThat(sideEffects).hasValue(0);
    }
  }

  /** Fail closed: with the store unreachable the operation never runs. */
  @Test
  void aStoreThatIsDownFailsClosed() throws Exception {
    try (IdempotencyEngine failing =
        IdempotencyEngine.builder(new UnreachableStore())
            .config(IdempotencyConfig.builder().clock(clock).build())
            .build()) {
      Outcome outcome = failing.execute(ID, FP, Work.stepped(charge()));
      assertThat(outcome).isInstanceOf(Outcome.StoreUnavailable.class);
      assertThat(sideEffects).hasValue(0);
    }
  }

  /**
   * An owner paused past its lease is taken over; its completion is then refused by the fence, and
   * the new owner's result is the one that replays.
   */
  @Test
  void aPausedOwnerCannotCompleteAfterATakeover() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    CompletableFuture<Outcome> paused =
        CompletableFuture.supplyAsync(
            () ->
                call(
                    execution -> {
                      running.countDown();
                      resume.await();
                      return StoredResponse.ofUtf8(201, "stale owner");
                    }),
            async);
    running.await();
    clock.advance(Duration.ofSeconds(31));
    Outcome takeover =
        engine.execute(ID, FP, Work.stepped(execution -> StoredResponse.ofUtf8(201, "new owner")));
    resume.countDown();

    assertThat(takeover).isInstanceOf(Outcome.Executed.class);
    assertThat(catchThrowableOfType(Exception.class, () -> paused.get(10, TimeUnit.SECONDS)))
        .hasRootCauseInstanceOf(LeaseLostException.class);
    assertThat(engine.execute(ID, FP, Work.stepped(charge())))
        .isInstanceOfSatisfying(
            Outcome.Replayed.class,
            r -> assertThat(r.response().bodyAsUtf8()).isEqualTo("new owner"));
    assertThat(events).hasAtLeastOneElementOfType(IdempotencyEvent.LeaseLost.class);
  }

  /**
   * The heartbeat renews the lease while the operation runs, so nobody takes a live request over.
   */
  @Test
  void theHeartbeatKeepsALongOperationOwned() throws Exception {
    try (IdempotencyEngine beating =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .heartbeatInterval(Duration.ofMillis(20))
                    .build())
            .build()) {
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch finish = new CountDownLatch(1);
      CompletableFuture<Outcome> first =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      beating,
                      execution -> {
                        running.countDown();
                        finish.await();
                        return CREATED;
                      }),
              async);
      running.await();
      var claimedUntil = store.lookup(ID).orElseThrow().leaseExpiresAt().orElseThrow();
      clock.advance(Duration.ofSeconds(20));
      awaitLeaseBeyond(claimedUntil);
      clock.advance(
          Duration.ofSeconds(
              20)); // 40 s after the claim: past the first lease, not the renewed one

      assertThat(beating.execute(ID, FP, Work.stepped(charge())))
          .isInstanceOf(Outcome.InFlightConflict.class);
      finish.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
      assertThat(sideEffects).hasValue(0);
    }
  }

  /**
   * An owner paused past its lease and taken over learns it through Execution.leaseLost() at the
   * next heartbeat, so it can stop before a side effect outside the store; its fenced writes are
   * refused regardless.
   */
  @Test
  void anOwnerTakenOverSeesLeaseLostBeforeItsNextSideEffect() throws Exception {
    try (IdempotencyEngine beating =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .heartbeatInterval(Duration.ofMillis(20))
                    .build())
            .build()) {
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch takenOver = new CountDownLatch(1);
      CompletableFuture<Boolean> sawLoss = new CompletableFuture<>();
      CompletableFuture<Outcome> paused =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      beating,
                      execution -> {
                        boolean before = execution.leaseLost();
                        running.countDown();
                        takenOver.await();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (!execution.leaseLost() && System.nanoTime() < deadline) {
                          Thread.sleep(
                              5); // the next heartbeat is refused within one interval (20 ms)
                        }
                        sawLoss.complete(!before && execution.leaseLost());
                        if (!execution.leaseLost()) {
                          sideEffects
                              .incrementAndGet(); // what an owner that cannot tell would do: call
                          // out a second time
                        }
                        return CREATED;
                      }),
              async);
      running.await();
      // another instance, whose clock is 31 s ahead of this engine's (so past every lease the
      // heartbeats renew to now + 30 s), finds the lease expired: as if this owner had stalled past
      // it
      ClaimOutcome takeover =
          store.claim(
              new ClaimRequest(
                  ID,
                  FP,
                  clock.instant().plusSeconds(31),
                  Duration.ofSeconds(30),
                  Duration.ofHours(24)));
      assertThat(takeover)
          .isInstanceOfSatisfying(
              ClaimOutcome.Claimed.class, c -> assertThat(c.takeover()).isTrue());
      takenOver.countDown();

      assertThat(sawLoss.get(10, TimeUnit.SECONDS))
          .as(
              "leaseLost() was false while owned and true once the"
                  + " heartbeat after the takeover was refused")
          .isTrue();
      assertThat(sideEffects).as("side effects of the owner that was taken over").hasValue(0);
      assertThatThrownBy(() -> paused.get(10, TimeUnit.SECONDS))
          .rootCause()
          .isInstanceOf(LeaseLostException.class);
    }
  }

  private void awaitLeaseBeyond(java.time.Instant t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!store.lookup(ID).orElseThrow().leaseExpiresAt().orElseThrow().isAfter(t)) {
      assertThat(System.nanoTime())
          .as("no heartbeat renewed the lease within 10 s")
          .isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void aListenerThatThrowsNeverChangesTheOutcome() throws Exception {
    try (IdempotencyEngine e =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .listener(
                        event -> {
                          throw new IllegalStateException("broken listener");
                        })
                    .build())
            .build()) {
      assertThat(e.execute(ID, FP, Work.stepped(charge()))).isInstanceOf(Outcome.Executed.class);
    }
  }

  /**
   * The concurrency gate at the engine: 32 threads, one key, exactly one side effect, the same
   * bytes for all.
   */
  @Test
  void concurrentIdenticalRequestsRunTheOperationOnce() throws Exception {
    int threads = 32;
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<Outcome>> results = new java.util.ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int i = 0; i < threads; i++) {
        results.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    start.await();
                    return engine.execute(
                        ID,
                        FP,
                        Work.stepped(
                            execution -> {
                              sideEffects.incrementAndGet();
                              Thread.sleep(
                                  20); // holds the record a while, so most of the others meet
                              // it in
                              // flight
                              return CREATED;
                            }));
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                },
                pool));
      }
      start.countDown();
      int executed = 0;
      for (CompletableFuture<Outcome> f : results) {
        Outcome o = f.get(20, TimeUnit.SECONDS);
        if (o instanceof Outcome.Executed) {
          executed++;
        } else if (o instanceof Outcome.Replayed r) {
          assertThat(r.response()).isEqualTo(CREATED);
        } else {
          assertThat(o).isInstanceOf(Outcome.InFlightConflict.class);
        }
      }
      assertThat(executed).isEqualTo(1);
      assertThat(sideEffects).hasValue(1);
    } finally {
      shutDown(pool);
    }
  }

  /** Stops a test's thread pool and waits, boundedly, for its threads to end. */
  static void shutDown(ExecutorService pool) throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS))
        .as(
            "the test's threads ended within 10 s of"
                + " shutdownNow (a thread that ignores interrupts is stuck in a blocking call)")
        .isTrue();
  }

  @Test
  void nullArgumentsAreRejected() {
    Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
    calls.put("execute(null id, ...)", () -> engine.execute(null, FP, Work.stepped(charge())));
    calls.put(
        "execute(..., null fingerprint, ...)",
        () -> engine.execute(ID, null, Work.stepped(charge())));
    calls.put("execute(..., null operation)", () -> engine.execute(ID, FP, null));
    calls.put("builder(null store)", () -> IdempotencyEngine.builder(null));
    calls.forEach(
        (call, callable) ->
            assertThatThrownBy(callable).as(call).isInstanceOf(NullPointerException.class));
    assertThat(store.lookup(ID))
        .as("the record after calls with a null argument (they must change nothing)")
        .isEmpty();
    assertThat(sideEffects).as("side effects of calls with a null argument").hasValue(0);
  }

  private Outcome call(Operation op) {
    return call(engine, op);
  }

  /**
   * {@code e.execute(ID, FP, Work.stepped(op))} for a {@code supplyAsync}: a checked exception
   * becomes its cause.
   */
  private static Outcome call(IdempotencyEngine e, Operation op) {
    try {
      return e.execute(ID, FP, Work.stepped(op));
    } catch (Exception ex) {
      throw new java.util.concurrent.CompletionException(ex);
    }
  }

  /** A store whose server cannot be reached: every call fails as a real driver's would. */
  private static final class UnreachableStore extends DelegatingStore {
    UnreachableStore() {
      super(new InMemoryKeyStore());
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
      throw new StoreUnavailableException("connection refused: 127.0.0.1:1");
    }
  }
}
