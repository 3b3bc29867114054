package dev.idempotency.servlet;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock the test moves by hand; thread-safe. */
final class MutableClock implements InstantSource {
  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

  @Override
  public Instant instant() {
    return now.get();
  }

  void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }
}
