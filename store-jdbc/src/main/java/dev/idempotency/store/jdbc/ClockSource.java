package dev.idempotency.store.jdbc;

/**
 * Whose clock judges leases, replay windows and retention.
 *
 * <p>{@link #DATABASE} (the default) reads the database's clock inside each statement, so every
 * application instance agrees on expiry whatever the skew between their clocks; the store then
 * declares {@link dev.idempotency.spi.StoreCapability#SERVER_CLOCK} and ignores the {@code now}
 * arguments of the SPI for those decisions. {@link #ENGINE} uses the {@code now} the engine passes
 * (its {@link java.time.InstantSource}), which is how tests drive time with a controllable clock.
 */
public enum ClockSource {
  /**
   * The database's clock, read by the statement itself ({@code statement_timestamp()}, {@code
   * UTC_TIMESTAMP(6)}, {@code CURRENT_TIMESTAMP}).
   */
  DATABASE,
  /** The {@code now} the engine passes with every call. */
  ENGINE
}
