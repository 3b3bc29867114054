package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.FenceToken;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The fence checker refuses older fences per resource and serializes a resource's writes; with an
 * idempotent write per request it records one debit across a takeover.
 */
class FenceCheckerTest {
  @Test
  void anOlderFenceIsRefusedAndItsWriteDoesNotRunAnEqualOneIsAdmitted() {
    FenceChecker<String> checker = new FenceChecker<>();
    List<String> writes = new ArrayList<>();
    checker.guard("order-1", FenceToken.of(5), () -> writes.add("owner 5"));
    checker.guard("order-1", FenceToken.of(5), () -> writes.add("owner 5 again"));
    checker.guard("order-1", FenceToken.of(9), () -> writes.add("owner 9"));
    assertThatThrownBy(() -> checker.guard("order-1", FenceToken.of(5), () -> writes.add("stale")))
        .isInstanceOf(StaleFenceException.class)
        .hasMessageContaining("fence#5")
        .hasMessageContaining("fence#9");
    assertThat(writes).containsExactly("owner 5", "owner 5 again", "owner 9");
    assertThat(checker.highest("order-1")).contains(FenceToken.of(9));
    // another resource has its own history
    checker.guard("order-2", FenceToken.of(1), () -> writes.add("order-2 owner 1"));
    assertThat(checker.highest("order-2")).contains(FenceToken.of(1));
  }

  /**
   * Owner 7 debits and is taken over by owner 12, which runs the request again: the debit is an
   * entry keyed by the request, so owner 12 finds it and does not debit again; owner 7, woken, is
   * refused. Fencing alone would have admitted owner 12's second debit.
   */
  @Test
  void aWriteIdempotentPerRequestDebitsOnceAcrossATakeover() {
    FenceChecker<String> checker = new FenceChecker<>();
    Map<String, Integer> ledger = new ConcurrentHashMap<>();
    String request = "tenant/order-1#17"; // the downstream key: the same for every owner
    checker.guard(request, FenceToken.of(7), () -> ledger.putIfAbsent(request, -30));
    checker.guard(request, FenceToken.of(12), () -> ledger.putIfAbsent(request, -30));
    assertThatThrownBy(
            () -> checker.guard(request, FenceToken.of(7), () -> ledger.put(request, -31)))
        .isInstanceOf(StaleFenceException.class);
    assertThat(ledger).as("one debit, owner 7's").containsExactly(Map.entry(request, -30));
  }

  @Test
  void aNewerFenceWaitsForAnOlderWriteInProgressInsteadOfInterleaving() throws Exception {
    FenceChecker<String> checker = new FenceChecker<>();
    CountDownLatch olderInside = new CountDownLatch(1);
    CountDownLatch letOlderFinish = new CountDownLatch(1);
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<Thread> newerThread = new AtomicReference<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> older =
          pool.submit(
              () ->
                  checker.guard(
                      "row",
                      FenceToken.of(1),
                      () -> {
                        events.add("older begins");
                        olderInside.countDown();
                        await(letOlderFinish);
                        return events.add("older ends");
                      }));
      assertThat(olderInside.await(10, TimeUnit.SECONDS)).isTrue();
      Future<?> newer =
          pool.submit(
              () -> {
                newerThread.set(Thread.currentThread());
                return checker.guard("row", FenceToken.of(2), () -> events.add("newer"));
              });
      // the newer write has reached the resource's lock and waits there: not a guess by sleeping
      awaitBlocked(newerThread);
      assertThat(events).containsExactly("older begins");
      letOlderFinish.countDown();
      older.get(10, TimeUnit.SECONDS);
      newer.get(10, TimeUnit.SECONDS);
      assertThat(events).containsExactly("older begins", "older ends", "newer");
    } finally {
      letOlderFinish.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Waits (at most 10 s) until the thread is blocked on a monitor. */
  private static void awaitBlocked(AtomicReference<Thread> thread) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (thread.get() == null || thread.get().getState() != Thread.State.BLOCKED) {
      if (System.nanoTime() > deadline) {
        fail("the newer write never waited on the resource's lock");
      }
      Thread.sleep(1);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not released within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
