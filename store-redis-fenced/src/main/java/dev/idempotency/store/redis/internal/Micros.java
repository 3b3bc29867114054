package dev.idempotency.store.redis.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * Instants and durations as the scripts keep them: whole epoch microseconds, which Lua's doubles
 * hold exactly (up to 2^53, the year 2255). Stateless.
 */
public final class Micros {
  private static final long MAX_EXACT = 1L << 53;

  private Micros() {}

  /**
   * An instant, rounded down to the microsecond.
   *
   * @throws IllegalArgumentException if it is more than 2^53 µs from the epoch either way
   */
  public static long of(Instant instant) {
    long us =
        Math.addExact(
            Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    if (us > MAX_EXACT || us < -MAX_EXACT) {
      throw new IllegalArgumentException(
          "instant " + instant + " is out of the range the Redis store keeps exactly");
    }
    return us;
  }

  /**
   * A positive duration, rounded up to the microsecond, so that a lease is never shorter than the
   * one asked for.
   */
  public static long of(Duration duration) {
    long us = Math.multiplyExact(duration.getSeconds(), 1_000_000L) + duration.getNano() / 1_000;
    if (duration.getNano() % 1_000 != 0) {
      us++;
    }
    if (us > MAX_EXACT) {
      throw new IllegalArgumentException(
          "duration " + duration + " is out of the range the Redis store keeps exactly");
    }
    return us;
  }

  /** The instant of epoch microseconds {@code us}. */
  public static Instant toInstant(long us) {
    return Instant.ofEpochSecond(
        Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1_000L);
  }

  /** A key expiry in whole milliseconds (Redis' {@code PX}), at least {@code us}. */
  public static long ceilMillis(long us) {
    return Math.floorDiv(us + 999, 1_000L);
  }
}
