package dev.idempotency.core;

import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Ends the engine's bounded wait on an in-flight key ({@link InFlightPolicy#waitUpTo}) without
 * interrupting the waiting thread, for a caller that learns on another thread that nobody wants the
 * answer any more (a gRPC call cancelled, or past its deadline). An interrupt would do that too,
 * but it may land in one of the wait's claims, a store round trip, which a store reports as
 * unavailable, and whose claim may have won: a false outage, and a record left in flight for a
 * lease. {@link #cancel()} only wakes the thread while it sleeps between claims; a claim under way
 * finishes, and the wait ends before the next one ({@link Outcome.InFlightConflict}).
 *
 * <p>One instance per call: pass it to {@link IdempotencyEngine#execute(dev.idempotency.RecordId,
 * dev.idempotency.Fingerprint, Work, WaitCancellation)} and call {@link #cancel()} from any thread.
 * Thread-safe.
 */
public final class WaitCancellation {
  private volatile boolean cancelled;
  private volatile @Nullable Thread sleeper;

  /** A cancellation not yet cancelled. */
  public WaitCancellation() {}

  /** Ends the wait: at once if the engine sleeps between claims, else before its next claim. */
  public void cancel() {
    cancelled = true;
    Thread t = sleeper;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /**
   * Whether {@link #cancel()} was called.
   *
   * @return true once cancelled
   */
  public boolean isCancelled() {
    return cancelled;
  }

  /**
   * Sleeps up to {@code nanos} between two claims of the wait.
   *
   * @return false if the wait was cancelled, before or during the sleep
   * @throws InterruptedException if the thread was interrupted, as a sleep would be
   */
  boolean pause(long nanos) throws InterruptedException {
    long until = System.nanoTime() + nanos;
    sleeper = Thread.currentThread();
    try {
      while (!cancelled) {
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        long left = until - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        LockSupport.parkNanos(this, left); // cancel() unparks; a spurious wake-up loops
      }
      return false;
    } finally {
      sleeper = null;
    }
  }
}
