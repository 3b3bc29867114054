package dev.idempotency.store.jdbc.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * Times are stored as epoch nanoseconds in {@code BIGINT} columns: exact for every {@link Instant}
 * the engine passes, free of the session-time-zone conversions of {@code TIMESTAMP} types, and the
 * same arithmetic in every dialect. Stateless.
 */
public final class Nanos {
  /**
   * Durations are clamped to 50 years so that {@code now + duration} never overflows a {@code
   * BIGINT}.
   */
  private static final long MAX_DURATION_NANOS = Duration.ofDays(365L * 50).toNanos();

  private static final Instant MIN = Instant.EPOCH;
  private static final Instant MAX = Instant.parse("2200-01-01T00:00:00Z");

  private Nanos() {}

  /** Epoch nanoseconds of {@code t}. */
  public static long of(Instant t) {
    if (t.isBefore(MIN) || t.isAfter(MAX)) {
      throw new IllegalArgumentException(
          "the JDBC key store handles times from " + MIN + " to " + MAX + ", but was " + t);
    }
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  private static final Duration MAX_DURATION = Duration.ofNanos(MAX_DURATION_NANOS);

  /** Nanoseconds of {@code d}, at most 50 years. */
  public static long of(Duration d) {
    if (d.compareTo(MAX_DURATION) >= 0) {
      return MAX_DURATION_NANOS;
    }
    return d.toNanos();
  }

  /** The instant of epoch nanoseconds {@code n}. */
  public static Instant toInstant(long n) {
    return Instant.ofEpochSecond(
        Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
  }
}
