package dev.idempotency.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * The {@code idempotency.completer.*} properties: the completer, which resumes abandoned requests.
 * A group of {@link IdempotencyProperties}.
 */
public class IdempotencyCompleterProperties {
  /** The defaults. */
  public IdempotencyCompleterProperties() {}

  /** Time between two runs. */
  private Duration interval = Duration.ofMinutes(1);

  /** Abandoned records resumed per run. */
  private int limit = 100;

  public Duration getInterval() {
    return interval;
  }

  public void setInterval(Duration interval) {
    this.interval = interval;
  }

  public int getLimit() {
    return limit;
  }

  public void setLimit(int limit) {
    this.limit = limit;
  }
}
