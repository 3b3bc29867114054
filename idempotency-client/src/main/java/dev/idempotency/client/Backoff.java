package dev.idempotency.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How long to wait before a retry. Two strategies only, both jittered, because un-jittered and
 * "equal jitter" backoff let a fleet of clients that failed together retry together:
 *
 * <ul>
 *   <li><b>Full jitter</b> (the default): {@code sleep = random(0, min(cap, base * 2^n))}, where
 *       {@code n} is the 0-based retry number. The first retry waits up to {@code base}, the second
 *       up to {@code 2 * base}, and so on up to {@code cap}.
 *   <li><b>Decorrelated jitter</b>: {@code sleep = min(cap, random(base, 3 * previous))}, with
 *       {@code previous} starting at {@code base}. Never shorter than {@code base}, which suits
 *       servers that need a moment.
 * </ul>
 *
 * <p>A server-sent {@code Retry-After} extends the computed wait and never shortens it; that is the
 * policy's business, not the backoff's. Immutable and thread-safe.
 */
public final class Backoff {
  /**
   * The default base delay, 0.5 s: long enough to clear a blip, short enough to stay inside a 30 s
   * deadline.
   */
  public static final Duration DEFAULT_BASE = Duration.ofMillis(500);

  /**
   * The default cap, 20 s: with the default 3 attempts the cap is never reached; it bounds larger
   * configurations.
   */
  public static final Duration DEFAULT_CAP = Duration.ofSeconds(20);

  /** The two strategies. */
  public enum Kind {
    /** {@code random(0, min(cap, base * 2^n))}. */
    FULL_JITTER,
    /** {@code min(cap, random(base, 3 * previous))}. */
    DECORRELATED_JITTER
  }

  private final Kind kind;
  private final long baseNanos;
  private final long capNanos;

  private Backoff(Kind kind, Duration base, Duration cap) {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(cap, "cap");
    if (base.isZero() || base.isNegative()) {
      throw new IllegalArgumentException("baseDelay must be > 0, but was " + base);
    }
    if (cap.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "maxDelay must be >= baseDelay (" + base + "), but was " + cap);
    }
    if (cap.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException("maxDelay must be <= PT24H, but was " + cap);
    }
    this.kind = kind;
    this.baseNanos = base.toNanos();
    this.capNanos = cap.toNanos();
  }

  /**
   * Full jitter with the defaults: base 0.5 s, cap 20 s.
   *
   * @return the default backoff
   */
  public static Backoff fullJitter() {
    return fullJitter(DEFAULT_BASE, DEFAULT_CAP);
  }

  /**
   * Full jitter: {@code random(0, min(cap, base * 2^n))}.
   *
   * @param base the base delay, {@code > 0}
   * @param cap the largest delay, {@code >= base} and at most 24 h
   * @return the backoff
   * @throws IllegalArgumentException if a bound is out of range; the message names the setting
   */
  public static Backoff fullJitter(Duration base, Duration cap) {
    return new Backoff(Kind.FULL_JITTER, base, cap);
  }

  /**
   * Decorrelated jitter: {@code min(cap, random(base, 3 * previous))}.
   *
   * @param base the base delay and the smallest delay, {@code > 0}
   * @param cap the largest delay, {@code >= base} and at most 24 h
   * @return the backoff
   * @throws IllegalArgumentException if a bound is out of range; the message names the setting
   */
  public static Backoff decorrelatedJitter(Duration base, Duration cap) {
    return new Backoff(Kind.DECORRELATED_JITTER, base, cap);
  }

  /**
   * The wait before a retry.
   *
   * @param retry the 0-based retry number: {@code 0} for the wait before the second attempt
   * @param previous the previous wait (decorrelated jitter grows from it), or {@link Duration#ZERO}
   *     before the first retry
   * @param random the random source
   * @return the wait, within {@code [0, cap]} (full jitter) or {@code [base, cap]} (decorrelated
   *     jitter)
   * @throws IllegalArgumentException if {@code retry} is negative
   */
  public Duration delay(int retry, Duration previous, RandomSource random) {
    Objects.requireNonNull(previous, "previous");
    Objects.requireNonNull(random, "random");
    double r = random.nextDouble();
    if (!(r >= 0.0 && r < 1.0)) {
      throw new IllegalStateException(
          "RandomSource.nextDouble() must return a value in [0, 1), but returned " + r);
    }
    if (kind == Kind.FULL_JITTER) {
      return Duration.ofNanos((long) (r * ceilingNanos(retry)));
    }
    if (retry < 0) {
      throw new IllegalArgumentException("retry must be >= 0, but was " + retry);
    }
    long prev = Math.max(baseNanos, Deadline.saturatedNanos(previous));
    double upper = 3.0 * prev;
    double drawn = baseNanos + r * (upper - (double) baseNanos);
    return Duration.ofNanos((long) Math.min((double) capNanos, drawn));
  }

  /**
   * The largest wait full jitter can draw before retry {@code retry}: {@code min(cap, base *
   * 2^retry)}. For decorrelated jitter this is the cap.
   *
   * @param retry the 0-based retry number
   * @return the upper bound of the wait
   * @throws IllegalArgumentException if {@code retry} is negative
   */
  public Duration ceiling(int retry) {
    return Duration.ofNanos(kind == Kind.FULL_JITTER ? ceilingNanos(retry) : capNanos);
  }

  private long ceilingNanos(int retry) {
    if (retry < 0) {
      throw new IllegalArgumentException("retry must be >= 0, but was " + retry);
    }
    if (retry >= 62 || baseNanos > (capNanos >> retry)) {
      return capNanos;
    }
    return Math.min(capNanos, baseNanos << retry);
  }

  /**
   * The strategy.
   *
   * @return the kind of backoff
   */
  public Kind kind() {
    return kind;
  }

  /**
   * The base delay.
   *
   * @return the base delay
   */
  public Duration base() {
    return Duration.ofNanos(baseNanos);
  }

  /**
   * The cap.
   *
   * @return the largest delay
   */
  public Duration cap() {
    return Duration.ofNanos(capNanos);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Backoff b
        && b.kind == kind
        && b.baseNanos == baseNanos
        && b.capNanos == capNanos;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, baseNanos, capNanos);
  }

  @Override
  public String toString() {
    return "Backoff[" + kind + ", base=" + base() + ", cap=" + cap() + "]";
  }
}
