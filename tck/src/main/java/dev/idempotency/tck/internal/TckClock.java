package dev.idempotency.tck.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The clock the TCK passes to every SPI call as {@code now}. Controlled, it stands still until a
 * test moves it, so lease and window boundaries can be hit to the millisecond; in system mode (for
 * stores with {@code SERVER_CLOCK}, which ignore {@code now} anyway) it reads the system clock.
 *
 * <p>A controlled clock starts far from the real date on purpose: a store that secretly reads the
 * system clock instead of {@code now} then fails every time rule, not just a few. Thread-safe: the
 * concurrent histories move it from several threads.
 */
public final class TckClock implements InstantSource {
  /** Where every controlled clock starts: a whole second, years away from the real date. */
  public static final Instant CONTROLLED_START = Instant.parse("2031-05-17T09:00:00Z");

  /** The controlled time; null for a clock that follows the system clock. */
  private final @Nullable AtomicReference<Instant> now;

  private TckClock(@Nullable Instant start) {
    this.now = start == null ? null : new AtomicReference<>(start);
  }

  /** A clock that stands at {@code start} until moved. */
  public static TckClock controlled(Instant start) {
    return new TckClock(Objects.requireNonNull(start, "start"));
  }

  /** A clock that reads the system clock and cannot be moved. */
  public static TckClock system() {
    return new TckClock(null);
  }

  /**
   * The clock for a store: the system clock for one that judges time by its server's clock
   * (SERVER_CLOCK), a controlled clock at {@link #CONTROLLED_START} for every other.
   */
  public static TckClock forStore(boolean serverClock) {
    return serverClock ? system() : controlled(CONTROLLED_START);
  }

  /** Whether the TCK moves this clock (false: it follows the system clock). */
  public boolean isControlled() {
    return now != null;
  }

  @Override
  public Instant instant() {
    return now == null
        ? Instant.now()
        : Objects.requireNonNull(now.get(), "a controlled clock always holds a time");
  }

  /** Moves a controlled clock forward by {@code d}; returns the new time. */
  public Instant advance(Duration d) {
    AtomicReference<Instant> controlled = requireControlled();
    if (d.isNegative()) {
      throw new IllegalArgumentException(
          "the TCK clock never moves back, but was asked to move " + d);
    }
    return controlled.updateAndGet(t -> t.plus(d));
  }

  /** Sets a controlled clock to {@code t}; tests only move it forward, but this does not insist. */
  public void set(Instant t) {
    requireControlled().set(Objects.requireNonNull(t, "t"));
  }

  /** The controlled time, which only a controlled clock has. */
  private AtomicReference<Instant> requireControlled() {
    if (now == null) {
      throw new IllegalStateException(
          "the system clock cannot be moved; use Timeline, which sleeps instead");
    }
    return now;
  }

  @Override
  public String toString() {
    return now == null ? "TckClock[system]" : "TckClock[" + now.get() + "]";
  }
}
