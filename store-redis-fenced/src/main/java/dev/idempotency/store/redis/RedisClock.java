package dev.idempotency.store.redis;

/**
 * Whose clock judges leases, replay windows and retention: the Redis store's counterpart of the
 * JDBC store's {@code ClockSource}.
 *
 * <p>{@link #SERVER} (the default) reads Redis' {@code TIME} inside each script, so every
 * application instance agrees on expiry whatever the skew between their clocks; the store then
 * declares {@link dev.idempotency.spi.StoreCapability#SERVER_CLOCK} and ignores the {@code now}
 * arguments for those decisions. {@link #ENGINE} uses the {@code now} the engine passes, which is
 * how tests drive time with a controllable clock. Fences read the server's clock in both (they are
 * not a time decision: see {@code docs/stores-redis.md}).
 */
public enum RedisClock {
  /** Redis' {@code TIME}, read by each script. */
  SERVER,
  /** The {@code now} the engine passes with every call. */
  ENGINE
}
