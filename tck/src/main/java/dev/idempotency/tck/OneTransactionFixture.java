package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Assumptions;

/**
 * The words the one-transaction rules (10.9 to 10.13, {@code Section10OneTransaction}) are written
 * in, beside section 10's own: the capability they need, work that counts its runs, the outcomes
 * required, and {@code claimAndComplete} calls racing behind one latch.
 *
 * @param <T> the store's transaction handle
 */
interface OneTransactionFixture<T> extends TransactionalFixture<T> {
  /** How many requests race in rule 10.13. */
  int RACERS = 8;

  /** Skips the test, with the reason, unless the store declares ONE_TRANSACTION. */
  default void requireCapability() {
    Assumptions.assumeTrue(
        store().capabilities().contains(StoreCapability.ONE_TRANSACTION),
        "the store does not declare ONE_TRANSACTION: claimAndComplete is not tested");
  }

  /** Work that counts its runs, writes {@code marker} and returns {@code response}. */
  default OneTransactionWork<T> writing(AtomicInteger runs, String marker, StoredResponse r) {
    return (tx, claim) -> {
      runs.incrementAndGet();
      write(tx, marker);
      return r;
    };
  }

  /** Requires {@code outcome} to be Committed. */
  default OneTransactionOutcome.Committed committed(
      OneTransactionOutcome outcome, Rule rule, String situation) {
    if (outcome instanceof OneTransactionOutcome.Committed c) {
      return c;
    }
    throw verify().violation(rule, situation + ": expected Committed, but got " + outcome);
  }

  /** Requires {@code outcome} to be NotRun, and returns the claim's answer it carries. */
  default ClaimOutcome notRun(OneTransactionOutcome outcome, Rule rule, String situation) {
    if (outcome instanceof OneTransactionOutcome.NotRun n) {
      return n.outcome();
    }
    throw verify().violation(rule, situation + ": expected NotRun, but got " + outcome);
  }

  default void ranTimes(AtomicInteger runs, int expected, Rule rule, String situation) {
    int ran = runs.get();
    verify()
        .fact(
            rule,
            situation + ": how often the work ran",
            () -> assertThat(ran).isEqualTo(expected));
  }

  /**
   * Runs {@code claimAndComplete} of {@code id} on {@code n} threads released together, thread i
   * with {@code work.apply(i)}; returns the outcomes in thread order. Bounded: a call that does not
   * return within 90 s fails the test, and a racer blocked in the store ends with the store's lock
   * wait or the test's deadline.
   */
  default List<OneTransactionOutcome> concurrently(
      int n, RecordId id, IntFunction<OneTransactionWork<T>> work) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<OneTransactionOutcome>> calls = new ArrayList<>();
    ExecutorService racers = Executors.newFixedThreadPool(n);
    try {
      for (int i = 0; i < n; i++) {
        OneTransactionWork<T> racer = work.apply(i);
        calls.add(
            racers.submit(
                () -> {
                  if (!start.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the start latch never opened");
                  }
                  return store().claimAndComplete(request(id, timing().stableLease()), racer);
                }));
      }
      start.countDown();
      List<OneTransactionOutcome> outcomes = new ArrayList<>();
      for (Future<OneTransactionOutcome> call : calls) {
        outcomes.add(call.get(90, TimeUnit.SECONDS));
      }
      return outcomes;
    } finally {
      racers.shutdownNow();
      racers.awaitTermination(30, TimeUnit.SECONDS);
    }
  }
}
