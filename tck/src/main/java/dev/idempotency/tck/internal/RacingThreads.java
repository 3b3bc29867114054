package dev.idempotency.tck.internal;

import dev.idempotency.LeaseLostException;
import dev.idempotency.spi.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of the {@link ConcurrencyGate}'s races: platform threads of one pool, released
 * together by one latch once every thread is ready, each race bounded by {@link #TIMEOUT_SECONDS}
 * so that a deadlocked store fails the rule instead of hanging the build.
 */
final class RacingThreads implements AutoCloseable {
  /** How long the threads of one race may take to start, and then to finish. */
  static final long TIMEOUT_SECONDS = 30;

  private final List<KeyStore> stores;
  private final Verifier verifier;
  private final ExecutorService pool;

  /**
   * Threads for up to {@code maxThreads}, over {@code stores} (the store first, then its peers).
   */
  RacingThreads(List<KeyStore> stores, Verifier verifier, int maxThreads) {
    this.stores = stores;
    this.verifier = verifier;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            maxThreads,
            r -> {
              Thread t = new Thread(r, "tck-gate-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** One thread's part in a race: what it does through {@code store} once the start latch opens. */
  @FunctionalInterface
  interface Racer<A> {
    A run(int thread, KeyStore store) throws Exception;
  }

  /**
   * Runs {@code racer} on {@code n} threads, thread i through instance i mod the number of
   * instances, all released together by one latch once every thread is ready; returns their
   * attempts in thread order. A race that does not finish in time, or a racer that throws, breaks
   * {@code rule}; a racer that found a violation itself throws it as it is.
   */
  <A> List<A> race(int n, Racer<A> racer, Rule rule, String where) {
    CountDownLatch ready = new CountDownLatch(n);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<A>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      KeyStore store = stores.get(i % stores.size());
      int thread = i;
      futures.add(
          pool.submit(
              () -> {
                ready.countDown();
                start.await();
                return racer.run(thread, store);
              }));
    }
    List<A> attempts = new ArrayList<>();
    try {
      if (!ready.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "the gate's threads did not start within " + TIMEOUT_SECONDS + " s");
      }
      start.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
      for (Future<A> f : futures) {
        attempts.add(f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during a race", e);
    } catch (TimeoutException e) {
      futures.forEach(f -> f.cancel(true));
      throw verifier.violation(
          rule,
          "the race on "
              + where
              + " did not finish within "
              + TIMEOUT_SECONDS
              + " s (a deadlock in the store?)",
          e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof AssertionError violation) {
        throw violation; // a task found the violation itself and described it
      }
      String what =
          cause instanceof LeaseLostException ? "LeaseLostException" : String.valueOf(cause);
      throw verifier.violation(rule, "a claim in the race on " + where + " threw " + what, cause);
    }
    return attempts;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
