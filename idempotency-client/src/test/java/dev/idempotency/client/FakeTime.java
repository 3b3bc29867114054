package dev.idempotency.client;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One controllable time for tests: a ticker, a wall clock and a sleeper that advances both instead
 * of waiting.
 */
public final class FakeTime implements Ticker, InstantSource, Sleeper {
  public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  private final AtomicLong nanos = new AtomicLong();
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  @Override
  public Instant instant() {
    return EPOCH.plusNanos(nanos.get());
  }

  @Override
  public void sleep(Duration duration) {
    sleeps.add(duration);
    advance(duration);
  }

  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  /**
   * @return every sleep requested, in order
   */
  public List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  public Duration now() {
    return Duration.ofNanos(nanos.get());
  }

  /**
   * @return the system environment with this fake time as its ticker, clock and sleeper
   */
  public RetryEnvironment environment() {
    return RetryEnvironment.system().withTicker(this).withClock(this).withSleeper(this);
  }
}
