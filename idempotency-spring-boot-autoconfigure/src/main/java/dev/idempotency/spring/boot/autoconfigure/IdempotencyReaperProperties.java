package dev.idempotency.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * The {@code idempotency.reaper.*} properties: the reaper, which deletes records past retention. A
 * group of {@link IdempotencyProperties}.
 */
public class IdempotencyReaperProperties {
  /** The defaults. */
  public IdempotencyReaperProperties() {}

  /** Whether this instance runs the reaper. */
  private boolean enabled = true;

  /** Time between two runs. */
  private Duration interval = Duration.ofMinutes(10);

  /** Records deleted per statement. */
  private int batchSize = 500;

  /** Delete statements per run. */
  private int maxBatches = 20;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Duration getInterval() {
    return interval;
  }

  public void setInterval(Duration interval) {
    this.interval = interval;
  }

  public int getBatchSize() {
    return batchSize;
  }

  public void setBatchSize(int batchSize) {
    this.batchSize = batchSize;
  }

  public int getMaxBatches() {
    return maxBatches;
  }

  public void setMaxBatches(int maxBatches) {
    this.maxBatches = maxBatches;
  }
}
