package dev.idempotency.client;

/**
 * A monotonic time source in nanoseconds, injected so that deadlines and elapsed times can be
 * driven by a test.
 *
 * <p>Only differences between two readings are meaningful, exactly as with {@link
 * System#nanoTime()}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {
  /**
   * Reads the ticker.
   *
   * @return the current reading in nanoseconds; only differences between readings are meaningful
   */
  long nanoTime();

  /**
   * The system ticker, {@link System#nanoTime()}.
   *
   * @return the system ticker
   */
  static Ticker system() {
    return System::nanoTime;
  }
}
