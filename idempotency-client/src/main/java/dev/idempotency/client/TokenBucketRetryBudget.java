package dev.idempotency.client;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default {@link RetryBudget}: a token bucket in the shape the AWS SDKs use. It starts full
 * with {@value #DEFAULT_CAPACITY} tokens; a retry after throttling costs {@value
 * #DEFAULT_THROTTLING_COST}, a retry after a transient error {@value #DEFAULT_TRANSIENT_COST}, and
 * every successful call refunds {@value #DEFAULT_SUCCESS_REFUND}, up to the capacity.
 *
 * <p>What that means: a healthy client barely touches the bucket. During a total outage a client
 * can spend at most {@code 500 / 14 = 35} transient retries (or 100 throttled ones) before it stops
 * retrying; afterwards each retry has to be earned back by 14 (or 5) successes, so in the long run
 * retries stay under about 7 % (or 20 %) of successful calls. Thread-safe and lock-free.
 */
public final class TokenBucketRetryBudget implements RetryBudget {
  /** The default capacity: 500 tokens, enough for 35 transient retries in a row. */
  public static final int DEFAULT_CAPACITY = 500;

  /** The default cost of a retry after throttling (429, in-flight 409). */
  public static final int DEFAULT_THROTTLING_COST = 5;

  /** The default cost of a retry after a transient error (5xx, connection failures, timeouts). */
  public static final int DEFAULT_TRANSIENT_COST = 14;

  /** The default refund per successful call. */
  public static final int DEFAULT_SUCCESS_REFUND = 1;

  private final int capacity;
  private final int throttlingCost;
  private final int transientCost;
  private final int successRefund;
  private final AtomicInteger tokens;

  private TokenBucketRetryBudget(Builder b) {
    this.capacity = b.capacity;
    this.throttlingCost = b.throttlingCost;
    this.transientCost = b.transientCost;
    this.successRefund = b.successRefund;
    this.tokens = new AtomicInteger(b.capacity);
  }

  /**
   * A full bucket with the defaults (500 / 5 / 14 / 1).
   *
   * @return a new budget
   */
  public static TokenBucketRetryBudget ofDefaults() {
    return builder().build();
  }

  /**
   * A builder starting from the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public boolean tryAcquire(RetryKind kind) {
    int cost = kind == RetryKind.THROTTLING ? throttlingCost : transientCost;
    while (true) {
      int current = tokens.get();
      if (current < cost) {
        return false;
      }
      if (tokens.compareAndSet(current, current - cost)) {
        return true;
      }
    }
  }

  @Override
  public void onSuccess() {
    tokens.updateAndGet(t -> Math.min(capacity, t + successRefund));
  }

  @Override
  public int available() {
    return tokens.get();
  }

  /**
   * The capacity.
   *
   * @return the most tokens the bucket holds
   */
  public int capacity() {
    return capacity;
  }

  @Override
  public String toString() {
    return "TokenBucketRetryBudget["
        + tokens.get()
        + "/"
        + capacity
        + ", throttlingCost="
        + throttlingCost
        + ", transientCost="
        + transientCost
        + ", successRefund="
        + successRefund
        + "]";
  }

  /** Builds a {@link TokenBucketRetryBudget}; setters validate at once. Not thread-safe. */
  public static final class Builder {
    private int capacity = DEFAULT_CAPACITY;
    private int throttlingCost = DEFAULT_THROTTLING_COST;
    private int transientCost = DEFAULT_TRANSIENT_COST;
    private int successRefund = DEFAULT_SUCCESS_REFUND;

    private Builder() {}

    /**
     * Sets the capacity (and the starting balance).
     *
     * @param capacity tokens, {@code >= 1}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder capacity(int capacity) {
      if (capacity < 1) {
        throw new IllegalArgumentException("capacity must be >= 1, but was " + capacity);
      }
      this.capacity = capacity;
      return this;
    }

    /**
     * Sets the cost of a retry after throttling.
     *
     * @param cost tokens, {@code >= 0}
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder throttlingCost(int cost) {
      if (cost < 0) {
        throw new IllegalArgumentException("throttlingCost must be >= 0, but was " + cost);
      }
      this.throttlingCost = cost;
      return this;
    }

    /**
     * Sets the cost of a retry after a transient error.
     *
     * @param cost tokens, {@code >= 0}
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder transientCost(int cost) {
      if (cost < 0) {
        throw new IllegalArgumentException("transientCost must be >= 0, but was " + cost);
      }
      this.transientCost = cost;
      return this;
    }

    /**
     * Sets the refund per successful call.
     *
     * @param refund tokens, {@code >= 0}
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder successRefund(int refund) {
      if (refund < 0) {
        throw new IllegalArgumentException("successRefund must be >= 0, but was " + refund);
      }
      this.successRefund = refund;
      return this;
    }

    /**
     * Builds a full bucket.
     *
     * @return the budget
     */
    public TokenBucketRetryBudget build() {
      return new TokenBucketRetryBudget(this);
    }
  }
}
