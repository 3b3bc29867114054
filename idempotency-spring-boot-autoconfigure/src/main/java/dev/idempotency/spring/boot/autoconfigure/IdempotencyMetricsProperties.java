package dev.idempotency.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * The {@code idempotency.metrics.*} properties: the meters (with a MeterRegistry in the context). A
 * group of {@link IdempotencyProperties}.
 */
public class IdempotencyMetricsProperties {
  /** The defaults. */
  public IdempotencyMetricsProperties() {}

  /** Time between two samples of the abandoned-keys gauge (one bounded store read each). */
  private Duration abandonedSampleInterval = Duration.ofMinutes(1);

  /** The most abandoned keys one sample counts. */
  private int abandonedSampleLimit = 1000;

  public Duration getAbandonedSampleInterval() {
    return abandonedSampleInterval;
  }

  public void setAbandonedSampleInterval(Duration abandonedSampleInterval) {
    this.abandonedSampleInterval = abandonedSampleInterval;
  }

  public int getAbandonedSampleLimit() {
    return abandonedSampleLimit;
  }

  public void setAbandonedSampleLimit(int abandonedSampleLimit) {
    this.abandonedSampleLimit = abandonedSampleLimit;
  }
}
