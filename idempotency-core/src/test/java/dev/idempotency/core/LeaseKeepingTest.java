package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How the engine keeps the leases of running operations: one renewal call for all of them per
 * heartbeat interval, an owner told before its lease can lapse unconfirmed, and no renewal past
 * {@code maxOperationTime}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseKeepingTest {
  private static final Fingerprint FP =
      Fingerprint.of("POST /payments".getBytes(StandardCharsets.UTF_8));
  private static final Duration WINDOW = Duration.ofHours(24);

  private final InMemoryKeyStore memory = new InMemoryKeyStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final CountDownLatch finish = new CountDownLatch(1);

  @AfterEach
  void tearDown() throws InterruptedException {
    finish.countDown();
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).as("test threads ended").isTrue();
  }

  private static RecordId id(int i) {
    return new RecordId(Scope.of("tenant"), IdempotencyKey.of("op-" + i));
  }

  /** A claim from another instance, judged at {@code now}. */
  private ClaimOutcome retry(RecordId id, Instant now, Duration lease) {
    return memory.claim(new ClaimRequest(id, FP, now, lease, WINDOW));
  }

  /**
   * A store whose every round trip costs 40 ms: a slow database. Renewing one lease per call would
   * take 12 s a tick for 300 operations, far past their 900 ms lease; one call for all of them
   * takes 40 ms.
   */
  @Test
  void hundredsOfOperationsOnASlowStoreKeepTheirLeases() throws Exception {
    int operations = 300;
    Duration lease = Duration.ofMillis(900);
    AtomicInteger renewalCalls = new AtomicInteger();
    DelegatingStore slow =
        new DelegatingStore(memory) {
          @Override
          public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration l) {
            roundTrip();
            memory.heartbeat(id, fence, now, l);
          }

          @Override
          public Set<RecordId> heartbeatAll(
              Map<RecordId, FenceToken> leases, Instant now, Duration l) {
            renewalCalls.incrementAndGet();
            roundTrip();
            return memory.heartbeatAll(leases, now, l);
          }

          private void roundTrip() {
            try {
              Thread.sleep(40);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(slow)
            .config(
                IdempotencyConfig.builder()
                    .lease(lease)
                    .heartbeatInterval(Duration.ofMillis(200))
                    .listener(events::add)
                    .build())
            .build()) {
      CountDownLatch running = new CountDownLatch(operations);
      AtomicInteger told = new AtomicInteger();
      List<CompletableFuture<Outcome>> owners = new ArrayList<>();
      for (int i = 0; i < operations; i++) {
        RecordId id = id(i);
        owners.add(
            CompletableFuture.supplyAsync(
                () ->
                    call(
                        engine,
                        id,
                        execution -> {
                          running.countDown();
                          finish.await();
                          if (execution.leaseLost()) {
                            told.incrementAndGet();
                          }
                          return StoredResponse.ofUtf8(201, "charged");
                        }),
                pool));
      }
      assertThat(running.await(20, TimeUnit.SECONDS)).as("all operations started").isTrue();

      // for three leases' time, other instances retry every key: none may take a live owner over
      long until = System.nanoTime() + 3 * lease.toNanos();
      int retries = 0;
      while (System.nanoTime() < until) {
        for (int i = 0; i < operations; i++) {
          ClaimOutcome o = retry(id(i), Instant.now(), lease);
          assertThat(o)
              .as(
                  "retry %d of op-%d while its owner runs: a takeover means the lease lapsed although"
                      + " the process was healthy (renewals too slow for %d operations?)",
                  retries, i, operations)
              .isInstanceOf(ClaimOutcome.InFlight.class);
        }
        retries++;
        Thread.sleep(50);
      }
      finish.countDown();
      for (CompletableFuture<Outcome> owner : owners) {
        assertThat(owner.get(20, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
      }
      assertThat(told).as("owners told leaseLost() while their renewals went through").hasValue(0);
      assertThat(renewalCalls.get())
          .as("renewal calls: one per tick, however many operations")
          .isPositive();
      assertThat(events)
          .noneMatch(
              e ->
                  e instanceof IdempotencyEvent.LeaseUnconfirmed
                      || e instanceof IdempotencyEvent.LeaseLost);
    }
  }

  /**
   * Renewals that never answer (a starved pool, a stalled store): the owner is told through
   * leaseLost() while its lease is still alive, so it can stop before a call out that a retry would
   * repeat after the lapse.
   */
  @Test
  void anOwnerIsToldBeforeItsLeaseCanLapseWhenRenewalsHang() throws Exception {
    MutableClock clock = new MutableClock();
    CountDownLatch renewalsHang = new CountDownLatch(1);
    DelegatingStore stalled =
        new DelegatingStore(memory) {
          @Override
          public Set<RecordId> heartbeatAll(
              Map<RecordId, FenceToken> leases, Instant now, Duration l) {
            try {
              renewalsHang.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return Set.of();
          }
        };
    Duration lease = Duration.ofSeconds(3);
    CompletableFuture<ClaimOutcome> retryWhenTold = new CompletableFuture<>();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(stalled)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .lease(lease)
                    .heartbeatInterval(Duration.ofSeconds(1))
                    .listener(
                        e -> {
                          events.add(e);
                          if (e instanceof IdempotencyEvent.LeaseUnconfirmed u) {
                            // what a retry from another instance finds at the moment the owner is
                            // told
                            retryWhenTold.complete(retry(u.id(), clock.instant(), lease));
                          }
                        })
                    .build())
            .build()) {
      assertThat(engine.config().leaseSafetyMargin()).isEqualTo(Duration.ofMillis(500));
      CountDownLatch running = new CountDownLatch(1);
      CompletableFuture<Boolean> sawTold = new CompletableFuture<>();
      CompletableFuture<Outcome> owner =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      engine,
                      id(1),
                      execution -> {
                        running.countDown();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                        while (!execution.leaseLost() && System.nanoTime() < deadline) {
                          Thread.sleep(5);
                        }
                        sawTold.complete(execution.leaseLost());
                        finish.await();
                        return StoredResponse.ofUtf8(201, "charged");
                      }),
              pool);
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      Instant lapse = memory.lookup(id(1)).orElseThrow().leaseExpiresAt().orElseThrow();

      clock.advance(Duration.ofMillis(2600)); // 400 ms of lease left, inside the 500 ms margin
      assertThat(sawTold.get(20, TimeUnit.SECONDS))
          .as("the owner was told leaseLost() while renewals hung")
          .isTrue();
      assertThat(clock.instant()).as("told before the lease's end %s", lapse).isBefore(lapse);
      assertThat(retryWhenTold.get(10, TimeUnit.SECONDS))
          .as("a retry at the moment the owner is told")
          .isInstanceOf(ClaimOutcome.InFlight.class);
      assertThat(events)
          .filteredOn(IdempotencyEvent.LeaseUnconfirmed.class::isInstance)
          .hasSize(1)
          .allSatisfy(
              e ->
                  assertThat(((IdempotencyEvent.LeaseUnconfirmed) e).confirmedUntil())
                      .isEqualTo(lapse));
      renewalsHang.countDown();
      finish.countDown();
      // the owner was told but nobody took over: its fenced completion still stands
      assertThat(owner.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
    }
  }

  /**
   * An operation that hangs: after maxOperationTime its lease is no longer renewed, the owner is
   * told, and once the lease lapses another instance takes the key over; the hung owner's late
   * completion is refused by the fence.
   */
  @Test
  void aHungOperationIsNoLongerRenewedAfterMaxOperationTime() throws Exception {
    Duration lease = Duration.ofMillis(600);
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(memory)
            .config(
                IdempotencyConfig.builder()
                    .lease(lease)
                    .heartbeatInterval(Duration.ofMillis(100))
                    .maxOperationTime(Duration.ofMillis(600))
                    .listener(events::add)
                    .build())
            .build()) {
      CountDownLatch running = new CountDownLatch(1);
      CompletableFuture<Outcome> hung =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      engine,
                      id(1),
                      execution -> {
                        running.countDown();
                        finish.await();
                        return StoredResponse.ofUtf8(201, "late");
                      }),
              pool);
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      ClaimOutcome taken;
      do {
        assertThat(System.nanoTime())
            .as(
                "another instance took the hung operation's key over within 20 s"
                    + " (the engine went on renewing past maxOperationTime?)")
            .isLessThan(deadline);
        Thread.sleep(20);
        taken = retry(id(1), Instant.now(), lease);
      } while (!(taken instanceof ClaimOutcome.Claimed));
      assertThat(((ClaimOutcome.Claimed) taken).takeover()).isTrue();
      assertThat(events)
          .anySatisfy(
              e ->
                  assertThat(e)
                      .isInstanceOfSatisfying(
                          IdempotencyEvent.OperationTimedOut.class,
                          t -> assertThat(t.ran()).isGreaterThanOrEqualTo(lease)));

      finish.countDown();
      assertThatThrownBy(() -> hung.get(10, TimeUnit.SECONDS))
          .rootCause()
          .isInstanceOf(LeaseLostException.class);
    }
  }

  /** While a transactional phase is open the engine leaves its record out of the renewals. */
  @Test
  void anOpenPhaseIsLeftOutOfRenewals() throws Exception {
    List<Set<RecordId>> batches = new CopyOnWriteArrayList<>();
    TransactionalMemoryStore recording =
        new TransactionalMemoryStore(memory) {
          @Override
          public Set<RecordId> heartbeatAll(
              Map<RecordId, FenceToken> leases, Instant now, Duration l) {
            batches.add(Set.copyOf(leases.keySet()));
            return memory.heartbeatAll(leases, now, l);
          }
        };
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(recording)
            .config(IdempotencyConfig.builder().heartbeatInterval(Duration.ofMillis(20)).build())
            .build()) {
      // a second operation without a phase keeps the renewal ticks coming
      CompletableFuture<Outcome> other =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      engine,
                      id(2),
                      execution -> {
                        finish.await();
                        return StoredResponse.ofUtf8(201, "done");
                      }),
              pool);
      CountDownLatch phaseOpen = new CountDownLatch(1);
      CountDownLatch closePhase = new CountDownLatch(1);
      CompletableFuture<Outcome> owner =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      engine,
                      id(1),
                      execution -> {
                        execution.checkpoint(
                            RecoveryPoint.of("phase", new byte[0]),
                            Object.class,
                            tx -> {
                              phaseOpen.countDown();
                              closePhase.await();
                              return "";
                            });
                        finish.await();
                        return StoredResponse.ofUtf8(201, "done");
                      }),
              pool);
      assertThat(phaseOpen.await(10, TimeUnit.SECONDS)).isTrue();
      int seen = batches.size();
      awaitBatches(batches, seen + 3);
      assertThat(batches.subList(seen, batches.size()))
          .as("renewals while the phase was open")
          .allSatisfy(b -> assertThat(b).doesNotContain(id(1)));
      closePhase.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (batches.stream().noneMatch(b -> b.contains(id(1)))) {
        assertThat(System.nanoTime())
            .as("renewed again within 10 s of the phase closing")
            .isLessThan(deadline);
        Thread.sleep(5);
      }
      finish.countDown();
      assertThat(owner.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
      assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
    }
  }

  /**
   * Closing the engine tells every running owner (no renewal will keep its lease) and refuses new
   * work.
   */
  @Test
  void closingTheEngineTellsRunningOwnersAndRefusesNewWork() throws Exception {
    IdempotencyEngine engine = IdempotencyEngine.builder(memory).build();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    CompletableFuture<Boolean> sawTold = new CompletableFuture<>();
    CompletableFuture<Outcome> owner =
        CompletableFuture.supplyAsync(
            () ->
                call(
                    engine,
                    id(1),
                    execution -> {
                      running.countDown();
                      closed.await();
                      sawTold.complete(execution.leaseLost());
                      return StoredResponse.ofUtf8(201, "done");
                    }),
            pool);
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    engine.close();
    closed.countDown();
    assertThat(sawTold.get(10, TimeUnit.SECONDS))
        .as("a running owner sees leaseLost() once the engine closed")
        .isTrue();
    assertThat(owner.get(10, TimeUnit.SECONDS))
        .as("told, not taken over: its fenced completion still stands")
        .isInstanceOf(Outcome.Executed.class);
    assertThatThrownBy(
            () ->
                engine.execute(
                    id(3), FP, Work.stepped(execution -> StoredResponse.ofUtf8(201, "late"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(memory.lookup(id(3))).as("nothing claimed by a closed engine").isEmpty();
  }

  private static void awaitBatches(List<?> batches, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (batches.size() < count) {
      assertThat(System.nanoTime()).as("%d renewal ticks within 10 s", count).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static Outcome call(IdempotencyEngine engine, RecordId id, Operation op) {
    try {
      return engine.execute(id, FP, Work.stepped(op));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
