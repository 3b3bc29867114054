package dev.idempotency.testing;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** Ending a test fixture's threads, so that none outlives the test that started it. */
public final class ThreadPools {
  private ThreadPools() {}

  /**
   * Shuts {@code pool} down, interrupting its threads, and waits up to {@code grace} for them to
   * end. Close the fixture's sockets first: a blocked socket read does not answer an interrupt.
   *
   * @param pool the fixture's pool
   * @param grace how long its threads may take to end
   * @param owner the fixture, for the message
   * @throws IllegalStateException if a thread is still running after {@code grace}, or the wait was
   *     interrupted
   */
  public static void shutDown(ExecutorService pool, Duration grace, String owner) {
    pool.shutdownNow();
    try {
      if (!pool.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            owner + ": a thread was still running " + grace + " after close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(owner + ": interrupted while its threads were ending", e);
    }
  }
}
