package dev.idempotency.core;

import dev.idempotency.event.IdempotencyListener;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The engine's settings, immutable and validated when built: a setting out of range fails {@link
 * Builder#build()} with an {@link IllegalArgumentException} whose message names the setting, its
 * value and why it is refused, so a misconfigured service does not start.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>why</th></tr>
 *   <tr><td>{@code replayWindow}</td><td>24 h</td><td>how long a completed key replays; the industry convention
 *       (Stripe, Resend, Twilio). Set it from the longest retry chain, never from storage cost.</td></tr>
 *   <tr><td>{@code retention}</td><td>72 h, never shorter than the window</td><td>how long the reaper keeps
 *       records after they complete or are abandoned: a Friday's failures survive the weekend for a human.</td></tr>
 *   <tr><td>{@code lease}</td><td>30 s</td><td>how long a claim holds an in-flight key without a heartbeat before
 *       another request may take it over.</td></tr>
 *   <tr><td>{@code heartbeatInterval}</td><td>lease / 3</td><td>renews the leases of all running operations in
 *       one store call; two missed heartbeats still leave the lease alive. When renewals cannot be confirmed and
 *       the confirmed lease has less than min(interval, lease - interval) / 2 left, the owner is told
 *       ({@code Execution.leaseLost()}) before the lease can lapse.</td></tr>
 *   <tr><td>{@code maxOperationTime}</td><td>15 min</td><td>after it the engine stops renewing a running operation's
 *       lease and tells the owner, so a hung operation cannot hold its key in flight forever: once the lease lapses
 *       a retry or the completer resumes the request from its last recovery point. Far above any HTTP request; raise
 *       it for long jobs.</td></tr>
 *   <tr><td>{@code longestRetryChain}</td><td>0 (none declared)</td><td>the longest time over which this deployment
 *       may retry one request (DLQ replays, scheduled re-runs); a replay window shorter than it is refused.</td></tr>
 *   <tr><td>{@code clock}</td><td>{@link InstantSource#system()}</td><td>the only source of time; tests inject a
 *       controllable one.</td></tr>
 *   <tr><td>{@code inFlightRetryAfter}</td><td>1 s</td><td>when an in-flight conflict tells the client to come
 *       back: most requests finish in well under a second, so the remaining lease (up to 30 s) would make a retry
 *       wait far longer than needed; the remaining lease still caps it, and it is never below 1 s (the header's
 *       granularity).</td></tr>
 *   <tr><td>{@code inFlightPolicy}</td><td>{@link InFlightPolicy#reject()}</td><td>409 at once is simplest and
 *       safest.</td></tr>
 *   <tr><td>{@code storedResponsePolicy}</td><td>{@link StoredResponsePolicy#storeAll()}</td><td>replay exactly
 *       what the first attempt produced (Stripe v1).</td></tr>
 *   <tr><td>{@code listener}</td><td>{@link IdempotencyListener#NONE}</td><td>events for logs and metrics.</td></tr>
 * </table>
 *
 * <p>Thread-safe.
 */
public final class IdempotencyConfig {
  /** The default replay window: 24 hours. */
  public static final Duration DEFAULT_REPLAY_WINDOW = Duration.ofHours(24);

  /** The default retention: 72 hours. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(3);

  /** The default lease: 30 seconds. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

  /** The default Retry-After of an in-flight conflict: 1 second. */
  public static final Duration DEFAULT_IN_FLIGHT_RETRY_AFTER = Duration.ofSeconds(1);

  /** The default longest time an operation's lease is renewed: 15 minutes. */
  public static final Duration DEFAULT_MAX_OPERATION_TIME = Duration.ofMinutes(15);

  private final Duration replayWindow;
  private final Duration retention;
  private final Duration lease;
  private final Duration heartbeatInterval;
  private final boolean heartbeatIntervalSet;
  private final Duration maxOperationTime;
  private final Duration longestRetryChain;
  private final Duration inFlightRetryAfter;
  private final InstantSource clock;
  private final InFlightPolicy inFlightPolicy;
  private final StoredResponsePolicy storedResponsePolicy;
  private final IdempotencyListener listener;

  private IdempotencyConfig(Builder b) {
    this.replayWindow = b.replayWindow;
    this.retention = b.retention;
    this.lease = b.lease;
    this.heartbeatInterval =
        b.heartbeatInterval != null ? b.heartbeatInterval : b.lease.dividedBy(3);
    this.heartbeatIntervalSet = b.heartbeatInterval != null;
    this.maxOperationTime = b.maxOperationTime;
    this.longestRetryChain = b.longestRetryChain;
    this.inFlightRetryAfter = b.inFlightRetryAfter;
    this.clock = b.clock;
    this.inFlightPolicy = b.inFlightPolicy;
    this.storedResponsePolicy = b.storedResponsePolicy;
    this.listener = b.listener;
  }

  /** A builder with every default. */
  public static Builder builder() {
    return new Builder();
  }

  /** The configuration with every default. */
  public static IdempotencyConfig ofDefaults() {
    return builder().build();
  }

  /** A builder that starts from this configuration's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.replayWindow = replayWindow;
    b.retention = retention;
    b.lease = lease;
    // a derived interval stays derived, so that a new lease in the copy gets its own third
    b.heartbeatInterval = heartbeatIntervalSet ? heartbeatInterval : null;
    b.maxOperationTime = maxOperationTime;
    b.longestRetryChain = longestRetryChain;
    b.inFlightRetryAfter = inFlightRetryAfter;
    b.clock = clock;
    b.inFlightPolicy = inFlightPolicy;
    b.storedResponsePolicy = storedResponsePolicy;
    b.listener = listener;
    return b;
  }

  /** How long after completion a key replays its response. */
  public Duration replayWindow() {
    return replayWindow;
  }

  /** How long records are kept before the reaper deletes them. */
  public Duration retention() {
    return retention;
  }

  /** How long a claim holds an in-flight key between heartbeats. */
  public Duration lease() {
    return lease;
  }

  /** How often the engine renews the lease while an operation runs. */
  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  /**
   * How long before a lease's confirmed end the owner is told it may lose it, when renewals are not
   * confirmed: half of the smaller of the heartbeat interval and the time left of a lease just
   * renewed at the next heartbeat ({@code lease - heartbeatInterval}), so a renewal that lands on
   * time never triggers it.
   */
  public Duration leaseSafetyMargin() {
    return safetyMargin(lease, heartbeatInterval);
  }

  private static Duration safetyMargin(Duration lease, Duration heartbeatInterval) {
    Duration afterNextBeat = lease.minus(heartbeatInterval);
    return (heartbeatInterval.compareTo(afterNextBeat) < 0 ? heartbeatInterval : afterNextBeat)
        .dividedBy(2);
  }

  /**
   * The longest time the engine renews a running operation's lease; then it stops and tells the
   * owner.
   */
  public Duration maxOperationTime() {
    return maxOperationTime;
  }

  /** The longest retry chain the deployment declared; zero when none. */
  public Duration longestRetryChain() {
    return longestRetryChain;
  }

  /**
   * The longest Retry-After an in-flight conflict suggests (capped by the remaining lease, at least
   * 1 s).
   */
  public Duration inFlightRetryAfter() {
    return inFlightRetryAfter;
  }

  /** The engine's clock. */
  public InstantSource clock() {
    return clock;
  }

  /** What a request does when its key is in flight. */
  public InFlightPolicy inFlightPolicy() {
    return inFlightPolicy;
  }

  /** Which responses are stored for replay. */
  public StoredResponsePolicy storedResponsePolicy() {
    return storedResponsePolicy;
  }

  /** Who receives the engine's events. */
  public IdempotencyListener listener() {
    return listener;
  }

  @Override
  public String toString() {
    return "IdempotencyConfig[replayWindow="
        + replayWindow
        + ", retention="
        + retention
        + ", lease="
        + lease
        + ", heartbeatInterval="
        + heartbeatInterval
        + ", maxOperationTime="
        + maxOperationTime
        + ", longestRetryChain="
        + longestRetryChain
        + ", inFlightRetryAfter="
        + inFlightRetryAfter
        + ", inFlightPolicy="
        + inFlightPolicy
        + "]";
  }

  /**
   * Builds an {@link IdempotencyConfig}. Each setter checks its own argument at once; {@link
   * #build()} checks the settings against each other. Not thread-safe; the configuration it builds
   * is.
   */
  public static final class Builder {
    private Duration replayWindow = DEFAULT_REPLAY_WINDOW;
    private Duration retention = DEFAULT_RETENTION;
    private Duration lease = DEFAULT_LEASE;
    private @Nullable Duration heartbeatInterval; // null: a third of the lease
    private Duration maxOperationTime = DEFAULT_MAX_OPERATION_TIME;
    private Duration longestRetryChain = Duration.ZERO;
    private Duration inFlightRetryAfter = DEFAULT_IN_FLIGHT_RETRY_AFTER;
    private InstantSource clock = InstantSource.system();
    private InFlightPolicy inFlightPolicy = InFlightPolicy.reject();
    private StoredResponsePolicy storedResponsePolicy = StoredResponsePolicy.storeAll();
    private IdempotencyListener listener = IdempotencyListener.NONE;

    private Builder() {}

    /** Sets the replay window (default 24 h); must be positive. */
    public Builder replayWindow(Duration replayWindow) {
      this.replayWindow = positive(replayWindow, "replayWindow");
      return this;
    }

    /**
     * Sets the retention (default 72 h); must be positive and, at build time, at least the replay
     * window.
     */
    public Builder retention(Duration retention) {
      this.retention = positive(retention, "retention");
      return this;
    }

    /** Sets the lease (default 30 s); must be at least 10 ms (a heartbeat has to fit inside it). */
    public Builder lease(Duration lease) {
      positive(lease, "lease");
      if (lease.compareTo(Duration.ofMillis(10)) < 0) {
        throw new IllegalArgumentException("lease must be >= PT0.01S, but was " + lease);
      }
      this.lease = lease;
      return this;
    }

    /**
     * Sets the heartbeat interval (default lease / 3); must be positive and, at build time, shorter
     * than the lease.
     */
    public Builder heartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = positive(heartbeatInterval, "heartbeatInterval");
      return this;
    }

    /**
     * Sets the longest time the engine renews a running operation's lease (default 15 min); must be
     * positive and, at build time, at least the lease. After it the engine stops renewing, tells
     * the owner through {@code Execution.leaseLost()} and publishes {@code OperationTimedOut}; the
     * lease lapses and a retry or the completer takes the record over.
     */
    public Builder maxOperationTime(Duration maxOperationTime) {
      this.maxOperationTime = positive(maxOperationTime, "maxOperationTime");
      return this;
    }

    /**
     * Declares the longest time over which this deployment may retry one request: dead-letter-queue
     * replays, scheduled re-runs, dispute windows. {@link #build()} refuses a replay window shorter
     * than it, because a retry at the end of the chain would run as a new request.
     */
    public Builder longestRetryChain(Duration longestRetryChain) {
      Objects.requireNonNull(longestRetryChain, "longestRetryChain");
      if (longestRetryChain.isNegative()) {
        throw new IllegalArgumentException(
            "longestRetryChain must be >= 0, but was " + longestRetryChain);
      }
      this.longestRetryChain = longestRetryChain;
      return this;
    }

    /**
     * Sets the Retry-After an in-flight conflict suggests (default 1 s): how soon the request is
     * expected to finish. The remaining lease caps it; it is never below 1 s.
     */
    public Builder inFlightRetryAfter(Duration inFlightRetryAfter) {
      this.inFlightRetryAfter = positive(inFlightRetryAfter, "inFlightRetryAfter");
      return this;
    }

    /** Sets the clock (default {@link InstantSource#system()}). */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets what a request does when its key is in flight (default {@link InFlightPolicy#reject()}).
     */
    public Builder inFlightPolicy(InFlightPolicy inFlightPolicy) {
      this.inFlightPolicy = Objects.requireNonNull(inFlightPolicy, "inFlightPolicy");
      return this;
    }

    /** Sets which responses are stored (default {@link StoredResponsePolicy#storeAll()}). */
    public Builder storedResponsePolicy(StoredResponsePolicy storedResponsePolicy) {
      this.storedResponsePolicy =
          Objects.requireNonNull(storedResponsePolicy, "storedResponsePolicy");
      return this;
    }

    /** Sets who receives events (default none). */
    public Builder listener(IdempotencyListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Checks the settings against each other and builds the configuration.
     *
     * @throws IllegalArgumentException naming the settings when retention is shorter than the
     *     replay window, the replay window is shorter than the longest retry chain, the heartbeat
     *     interval is not shorter than the lease, or the longest operation time is shorter than the
     *     lease
     */
    public IdempotencyConfig build() {
      if (retention.compareTo(replayWindow) < 0) {
        throw new IllegalArgumentException(
            "retention ("
                + retention
                + ") must be >= replayWindow ("
                + replayWindow
                + "): a record deleted before its window ends would let a retry run again");
      }
      if (replayWindow.compareTo(longestRetryChain) < 0) {
        throw new IllegalArgumentException(
            "replayWindow ("
                + replayWindow
                + ") must be >= longestRetryChain ("
                + longestRetryChain
                + "): a retry at the end of the chain would run as a new request;"
                + " lengthen replayWindow (and retention) or shorten the retry chain");
      }
      if (heartbeatInterval != null && heartbeatInterval.compareTo(lease) >= 0) {
        throw new IllegalArgumentException(
            "heartbeatInterval ("
                + heartbeatInterval
                + ") must be < lease ("
                + lease
                + "): the lease would expire between heartbeats");
      }
      Duration margin =
          safetyMargin(lease, heartbeatInterval != null ? heartbeatInterval : lease.dividedBy(3));
      if (margin.compareTo(Duration.ofMillis(1)) < 0) {
        throw new IllegalArgumentException(
            "heartbeatInterval ("
                + heartbeatInterval
                + ") leaves a safety margin of "
                + margin
                + " before the lease ("
                + lease
                + ") ends: an owner could not be told before its lease lapses;"
                + " shorten heartbeatInterval");
      }
      if (maxOperationTime.compareTo(lease) < 0) {
        throw new IllegalArgumentException(
            "maxOperationTime ("
                + maxOperationTime
                + ") must be >= lease ("
                + lease
                + "): an operation would be cut off before its first lease could run out");
      }
      return new IdempotencyConfig(this);
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0, but was " + d);
      }
      return d;
    }
  }
}
