package dev.idempotency.store.dynamodb.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The batch renewal's own paths, with renewals the test controls: the budget of the whole call, a
 * caller interrupted, a store closed under a caller, a call after close, a refused and a failed
 * renewal. Every wait is bounded.
 */
class ParallelRenewalsTest {
  private final ParallelRenewals renewals = new ParallelRenewals(2, "test-renewal");
  private final ExecutorService caller = Executors.newSingleThreadExecutor();

  @AfterEach
  void tearDown() throws Exception {
    renewals.close();
    caller.shutdownNow();
    assertThat(caller.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Waits up to 30 s on {@code latch}; false when interrupted. */
  private static boolean stall(CountDownLatch latch) {
    try {
      return latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Map<RecordId, FenceToken> leases(int n) {
    Map<RecordId, FenceToken> leases = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      leases.put(RecordId.of("s", "k" + i), FenceToken.of(i + 1));
    }
    return leases;
  }

  @Test
  void renewsEveryLeaseAndReturnsTheRefusedOnes() {
    Set<RecordId> refused =
        renewals.renewAll(
            leases(10), Duration.ofSeconds(5), (id, fence, deadline) -> fence.value() % 3 != 0);
    assertThat(refused)
        .containsExactlyInAnyOrder(
            RecordId.of("s", "k2"), RecordId.of("s", "k5"), RecordId.of("s", "k8"));
  }

  @Test
  void theWholeCallEndsWithinItsBudgetAndRenewalsNotStartedByThenAreNotSent() throws Exception {
    AtomicInteger sent = new AtomicInteger();
    CountDownLatch never = new CountDownLatch(1);
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                renewals.renewAll(
                    leases(40),
                    Duration.ofMillis(300),
                    (id, fence, deadline) -> {
                      sent.incrementAndGet();
                      // a renewal that does not answer: ends only when interrupted (or after 30 s)
                      return stall(never);
                    }))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("budget");
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    // 40 leases at 2 a time would be 20 rounds of one call timeout each; the budget bounds them all
    assertThat(tookMillis).as("the call's time, in ms").isLessThan(10_000);
    assertThat(sent).as("only the renewals started within the budget were sent").hasValue(2);
  }

  @Test
  void anInterruptedCallerGetsUnavailableAndTheRenewalsAreInterrupted() throws Exception {
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch interrupted = new CountDownLatch(2);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread t =
        new Thread(
            () -> {
              try {
                renewals.renewAll(
                    leases(2),
                    Duration.ofSeconds(60),
                    (id, fence, deadline) -> {
                      started.countDown();
                      try {
                        Thread.sleep(60_000);
                      } catch (InterruptedException e) {
                        interrupted.countDown();
                      }
                      return true;
                    });
              } catch (RuntimeException e) {
                thrown.set(e);
              }
            });
    t.start();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    t.interrupt();
    t.join(10_000);
    assertThat(t.isAlive()).as("the caller returned").isFalse();
    assertThat(thrown.get())
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("interrupted");
    assertThat(interrupted.await(10, TimeUnit.SECONDS))
        .as("the renewals under way were interrupted")
        .isTrue();
  }

  @Test
  void closeUnblocksACallerWaitingForQueuedRenewals() throws Exception {
    CountDownLatch started = new CountDownLatch(2);
    Future<Throwable> call =
        caller.submit(
            () -> {
              try {
                renewals.renewAll(
                    leases(10),
                    Duration.ofSeconds(60),
                    (id, fence, deadline) -> {
                      started.countDown();
                      return stall(new CountDownLatch(1));
                    });
                return new AssertionError("renewAll returned");
              } catch (RuntimeException e) {
                return e;
              }
            });
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    renewals.close();
    Throwable thrown = call.get(10, TimeUnit.SECONDS);
    assertThat(thrown).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
  }

  @Test
  void aCallAfterCloseIsUnavailableNotARejectedExecution() {
    renewals.close();
    assertThatThrownBy(
            () -> renewals.renewAll(leases(3), Duration.ofSeconds(5), (id, fence, d) -> true))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void aRenewalThatFailsFailsTheCallWithItsOwnException() {
    KeyStoreException missingTable = new KeyStoreException("the table does not exist");
    assertThatThrownBy(
            () ->
                renewals.renewAll(
                    leases(5),
                    Duration.ofSeconds(5),
                    (id, fence, deadline) -> {
                      if (fence.value() == 3) {
                        throw missingTable;
                      }
                      return true;
                    }))
        .isSameAs(missingTable);
  }
}
