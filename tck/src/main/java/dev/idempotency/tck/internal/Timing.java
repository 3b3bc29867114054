package dev.idempotency.tck.internal;

import java.time.Duration;

/**
 * The leases, windows and retentions the contract uses, which depend on how the store judges time.
 *
 * <p>With a controlled clock the production defaults (lease 30 s, window 24 h, retention 72 h) cost
 * nothing: the clock jumps. A {@code SERVER_CLOCK} store ignores the TCK's clock, so its time rules
 * are proven with short real durations (lease {@code L}, window {@code 1.25 L}, retention {@code 2
 * L}, with {@code L} = 1 s by default) and real sleeps that overshoot each boundary by a margin of
 * {@code L / 4}. The <em>stable</em> durations are for rules that are not about time: long enough
 * that nothing expires while such a test runs.
 */
public final class Timing {
  private final boolean realTime;
  private final Duration lease;
  private final Duration window;
  private final Duration retention;
  private final Duration margin;
  private final Duration stableLease;
  private final Duration stableWindow;
  private final Duration stableRetention;

  private Timing(
      boolean realTime,
      Duration lease,
      Duration window,
      Duration retention,
      Duration margin,
      Duration stableLease,
      Duration stableWindow,
      Duration stableRetention) {
    this.realTime = realTime;
    this.lease = lease;
    this.window = window;
    this.retention = retention;
    this.margin = margin;
    this.stableLease = stableLease;
    this.stableWindow = stableWindow;
    this.stableRetention = stableRetention;
  }

  /**
   * The profile for a store: real time with the configured lease ({@link
   * Knobs#serverClockLeaseMillis}) for one that judges time by its server's clock, the controlled
   * profile for every other.
   */
  public static Timing forStore(boolean serverClock) {
    return serverClock ? realTime(Knobs.serverClockLeaseMillis()) : controlled();
  }

  /** The profile for a store that judges time by the {@code now} it is given. */
  public static Timing controlled() {
    Duration lease = Duration.ofSeconds(30);
    Duration window = Duration.ofHours(24);
    Duration retention = Duration.ofDays(3);
    return new Timing(false, lease, window, retention, Duration.ZERO, lease, window, retention);
  }

  /** The profile for a {@code SERVER_CLOCK} store: short real durations, see the class comment. */
  public static Timing realTime(long leaseMillis) {
    Duration lease = Duration.ofMillis(leaseMillis);
    return new Timing(
        true,
        lease,
        lease.multipliedBy(5).dividedBy(4),
        lease.multipliedBy(2),
        lease.dividedBy(4),
        Duration.ofMinutes(5),
        Duration.ofHours(1),
        Duration.ofHours(2));
  }

  /**
   * Whether time passes by real sleeps (a SERVER_CLOCK store) rather than by moving the TCK clock.
   */
  public boolean isRealTime() {
    return realTime;
  }

  /** The lease of the time rules. */
  public Duration lease() {
    return lease;
  }

  /** The replay window of the time rules. */
  public Duration window() {
    return window;
  }

  /** The retention of the time rules; longer than the window by more than two margins. */
  public Duration retention() {
    return retention;
  }

  /**
   * How far past a boundary a real sleep goes; zero for a controlled clock, which hits boundaries
   * exactly.
   */
  public Duration margin() {
    return margin;
  }

  /** A lease that does not expire while a test that is not about time runs. */
  public Duration stableLease() {
    return stableLease;
  }

  /** A replay window that does not pass while a test that is not about time runs. */
  public Duration stableWindow() {
    return stableWindow;
  }

  /** A retention that does not pass while a test that is not about time runs. */
  public Duration stableRetention() {
    return stableRetention;
  }

  @Override
  public String toString() {
    return (realTime ? "real time" : "controlled clock")
        + " (lease "
        + lease
        + ", window "
        + window
        + ", retention "
        + retention
        + ", margin "
        + margin
        + ")";
  }
}
