package dev.idempotency.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock the test moves by hand, for the engine's and the stores' time-dependent rules (leases,
 * replay windows, retention). It starts at 2026-01-01T00:00:00Z and moves only when the test calls
 * {@link #advance}. Thread-safe, so that heartbeat threads read a consistent time.
 */
public final class MutableClock implements InstantSource {
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

  /** A clock at 2026-01-01T00:00:00Z. */
  public MutableClock() {}

  @Override
  public Instant instant() {
    return now.get();
  }

  /** Moves the clock forward by {@code d}. */
  public void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }
}
