package dev.idempotency.tck.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Time as one time rule sees it: offsets from an anchor taken just before the call that started a
 * lease or a window. The rules are written once against it and run in both modes:
 *
 * <ul>
 *   <li>controlled clock: {@link #justBefore} sets the clock 1 ms before the boundary and {@link
 *       #at} exactly on it, so boundaries are checked to the millisecond;
 *   <li>real time ({@code SERVER_CLOCK}): {@link #at} sleeps until the boundary plus the margin has
 *       passed, and {@link #justBefore} only makes sure the boundary minus the margin has not
 *       passed yet (if the machine was slower than that, the check would prove nothing: see {@link
 *       Knobs#tooSlowFails()}).
 * </ul>
 *
 * <p>In real time the store stamps the call that started the lease or window with its own clock,
 * somewhere between the anchor and the end of that call, and a loaded machine can stretch a call
 * past the margin. So the boundary is taken at its earliest for {@link #justBefore} (the anchor)
 * and at its latest for {@link #at}: the first time the timeline moves, which every rule does only
 * once the calls that started it have returned.
 */
public final class Timeline {
  private final TckClock clock;
  private final Timing timing;
  private final Instant start;
  private final long startNanos;
  private long settledNanos;
  private boolean settled;

  private Timeline(TckClock clock, Timing timing) {
    this.clock = clock;
    this.timing = timing;
    this.startNanos = System.nanoTime();
    this.start = clock.instant();
  }

  /** Anchors a timeline now; take it just before the call whose lease or window it measures. */
  public static Timeline start(TckClock clock, Timing timing) {
    return new Timeline(clock, timing);
  }

  /** The anchor: the clock's time when the timeline started. */
  public Instant start() {
    return start;
  }

  /** The time to pass to the store now. */
  public Instant now() {
    return clock.instant();
  }

  /** Moves to just before {@code start + offset}; see the class comment. */
  public Instant justBefore(Duration offset) {
    if (clock.isControlled()) {
      clock.set(start.plus(offset).minusMillis(1));
    } else {
      long elapsed = System.nanoTime() - startNanos;
      long latest = offset.minus(timing.margin()).toNanos();
      if (elapsed > latest) {
        tooSlow(
            "this machine was too slow to check a time rule in real time: "
                + TimeUnit.NANOSECONDS.toMillis(elapsed)
                + " ms passed, but the check had to happen within "
                + TimeUnit.NANOSECONDS.toMillis(latest)
                + " ms; raise -D"
                + Knobs.SERVER_CLOCK_LEASE_MILLIS);
      }
    }
    return clock.instant();
  }

  /**
   * Moves to {@code start + offset} (real time: sleeps until that plus the margin has passed,
   * counted from {@link #started()} when a rule said it; see the class comment).
   */
  public Instant at(Duration offset) {
    if (clock.isControlled()) {
      clock.set(start.plus(offset));
    } else {
      long until = (settled ? settledNanos : startNanos) + offset.plus(timing.margin()).toNanos();
      sleepUntil(until);
    }
    return clock.instant();
  }

  /**
   * Says that the calls that started the lease or window have returned: in real time {@link #at}
   * counts from now on, since the store may have stamped the last of them as late as this.
   */
  public void started() {
    settledNanos = System.nanoTime();
    settled = true;
  }

  /**
   * A check that came too late proves nothing either way: locally the test is aborted (skipped,
   * with the reason), but where a skip would go unread (CI) it fails, so a run in which the time
   * rules were never checked is red.
   */
  private static void tooSlow(String message) {
    if (Knobs.tooSlowFails()) {
      throw new AssertionError(
          message
              + " ("
              + Knobs.TOO_SLOW
              + "=fail: a time rule that could not be checked"
              + " fails the run instead of skipping)");
    }
    Assumptions.abort(message);
  }

  private static void sleepUntil(long nanoTime) {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted while waiting for a lease or window to pass", e);
      }
    }
  }
}
