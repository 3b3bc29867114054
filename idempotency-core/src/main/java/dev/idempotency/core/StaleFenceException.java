package dev.idempotency.core;

import dev.idempotency.FenceToken;

/**
 * A {@link FenceChecker} refused a write: its fence is older than one the resource already saw, so
 * its owner was taken over and must stop. The write did not run.
 */
public final class StaleFenceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient FenceToken fence;
  private final transient FenceToken highest;

  /**
   * @param resource what was written, for the message
   * @param fence the refused fence
   * @param highest the highest fence the resource saw
   */
  public StaleFenceException(Object resource, FenceToken fence, FenceToken highest) {
    super(
        "write to "
            + resource
            + " with "
            + fence
            + " refused: it already saw "
            + highest
            + ", so another owner took the record over; stop, the new owner does this work");
    this.fence = fence;
    this.highest = highest;
  }

  /** The refused fence. */
  public FenceToken fence() {
    return fence;
  }

  /** The highest fence the resource had seen. */
  public FenceToken highest() {
    return highest;
  }
}
