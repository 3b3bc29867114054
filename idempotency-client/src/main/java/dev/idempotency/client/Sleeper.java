package dev.idempotency.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Waits between attempts; injected so that tests run a retry schedule without real waiting.
 *
 * <p>{@link #system()} blocks with {@link Thread#sleep(long, int)} and schedules asynchronous waits
 * on {@link CompletableFuture#delayedExecutor(long, TimeUnit)}, so {@code sendAsync} never blocks a
 * thread while it waits. A test double usually implements only {@link #sleep(Duration)} (for
 * example by advancing a fake {@link Ticker}); the default {@link #sleepAsync(Duration)} then calls
 * it on the calling thread. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Sleeper {
  /**
   * Blocks the calling thread for {@code duration}.
   *
   * @param duration how long to wait, never negative
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * Waits without blocking (by default: calls {@link #sleep(Duration)} on the calling thread, which
   * suits test doubles that return at once).
   *
   * @param duration how long to wait, never negative
   * @return a stage that completes when the wait is over, or exceptionally if it was interrupted
   */
  default CompletionStage<Void> sleepAsync(Duration duration) {
    try {
      sleep(duration);
      return CompletableFuture.completedFuture(null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The real sleeper.
   *
   * @return a sleeper that waits in real time
   */
  static Sleeper system() {
    return SystemSleeper.INSTANCE;
  }
}

/**
 * The real sleeper: blocking sleeps on the thread, asynchronous ones on the JDK's delayed executor.
 */
enum SystemSleeper implements Sleeper {
  INSTANCE;

  @Override
  public void sleep(Duration duration) throws InterruptedException {
    long nanos = duration.toNanos();
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
  }

  @Override
  public CompletionStage<Void> sleepAsync(Duration duration) {
    long nanos = Math.max(0, duration.toNanos());
    return CompletableFuture.runAsync(
        () -> {}, CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS));
  }
}
