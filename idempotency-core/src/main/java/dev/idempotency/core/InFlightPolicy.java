package dev.idempotency.core;

import java.time.Duration;
import java.util.Objects;

/**
 * What the engine does when a request finds its key in flight under another owner.
 *
 * <ul>
 *   <li>{@link #reject()} (the default): answer at once with {@link Outcome.InFlightConflict}; the
 *       client retries after {@code Retry-After}. Simplest and safest.
 *   <li>{@link #waitUpTo(Duration, Duration)}: claim again every {@code pollInterval} until the key
 *       completes (then replay), the owner's lease expires (then take over), or {@code maxWait}
 *       passes (then the conflict). For callers that need the result synchronously. It holds a
 *       request thread while it waits.
 * </ul>
 *
 * <p>Never does it let the second request through because the first "seems stuck": only an expired
 * lease does. Immutable and thread-safe.
 */
public final class InFlightPolicy {
  private static final InFlightPolicy REJECT = new InFlightPolicy(Duration.ZERO, Duration.ZERO);

  private final Duration maxWait;
  private final Duration pollInterval;

  private InFlightPolicy(Duration maxWait, Duration pollInterval) {
    this.maxWait = maxWait;
    this.pollInterval = pollInterval;
  }

  /** Answer the conflict at once. */
  public static InFlightPolicy reject() {
    return REJECT;
  }

  /**
   * Wait, bounded, for the result.
   *
   * @param maxWait the longest wait, positive; the conflict follows when it passes
   * @param pollInterval how often to look again, positive and at most {@code maxWait}
   * @throws IllegalArgumentException naming the setting when a duration is out of range
   */
  public static InFlightPolicy waitUpTo(Duration maxWait, Duration pollInterval) {
    Objects.requireNonNull(maxWait, "maxWait");
    Objects.requireNonNull(pollInterval, "pollInterval");
    if (maxWait.isNegative() || maxWait.isZero()) {
      throw new IllegalArgumentException("inFlightPolicy maxWait must be > 0, but was " + maxWait);
    }
    if (pollInterval.isNegative() || pollInterval.isZero() || pollInterval.compareTo(maxWait) > 0) {
      throw new IllegalArgumentException(
          "inFlightPolicy pollInterval must be > 0 and <= maxWait ("
              + maxWait
              + "), but was "
              + pollInterval);
    }
    return new InFlightPolicy(maxWait, pollInterval);
  }

  /** Whether this policy waits at all. */
  public boolean waits() {
    return !maxWait.isZero();
  }

  /** The longest wait; zero for {@link #reject()}. */
  public Duration maxWait() {
    return maxWait;
  }

  /** How often the wait looks again; zero for {@link #reject()}. */
  public Duration pollInterval() {
    return pollInterval;
  }

  @Override
  public String toString() {
    return waits() ? "waitUpTo(" + maxWait + ", every " + pollInterval + ")" : "reject";
  }
}
