package dev.idempotency.client;

/**
 * A budget that every retry must be paid from, shared by all calls through one client (or, by
 * passing the same instance to several policies, by a whole fleet). When the budget is empty, the
 * call stops with {@link StopReason#BUDGET} instead of adding load to a struggling server: the
 * defence against retry storms that attempt limits alone do not give (three attempts per call still
 * triple the load during an outage).
 *
 * <p>Implementations must be thread-safe and non-blocking: {@link #tryAcquire(RetryKind)} is called
 * on the retry path of every call, and it must answer at once (a budget that waits for tokens would
 * turn an outage into a pile-up of blocked threads).
 *
 * @see TokenBucketRetryBudget the default
 */
public interface RetryBudget {
  /**
   * Takes what one retry of {@code kind} costs, if the budget holds it.
   *
   * @param kind the kind of failure being retried
   * @return {@code true} if the retry may run (and was paid for), {@code false} if the budget is
   *     empty
   */
  boolean tryAcquire(RetryKind kind);

  /**
   * Records a call that ended with a final response the server produced on purpose (not a retryable
   * failure), which refills the budget a little.
   */
  void onSuccess();

  /**
   * The tokens left, for logs and metrics.
   *
   * @return the current balance, or {@link Integer#MAX_VALUE} for an unlimited budget
   */
  int available();

  /**
   * A budget that never runs out. It removes the storm protection: use it only where something else
   * bounds the retries (a test, a batch job with its own rate limit).
   *
   * @return an unlimited budget
   */
  static RetryBudget unlimited() {
    return UnlimitedRetryBudget.INSTANCE;
  }
}

/** The budget that always says yes. */
enum UnlimitedRetryBudget implements RetryBudget {
  INSTANCE;

  @Override
  public boolean tryAcquire(RetryKind kind) {
    return true;
  }

  @Override
  public void onSuccess() {}

  @Override
  public int available() {
    return Integer.MAX_VALUE;
  }

  @Override
  public String toString() {
    return "RetryBudget.unlimited()";
  }
}
