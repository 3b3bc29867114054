package dev.idempotency.core;

import dev.idempotency.RecordId;
import java.time.Duration;

/**
 * Another request with the same key is still running (after the {@link InFlightPolicy}'s wait, if
 * it waits), or this thread was interrupted while waiting for it (the interrupt flag is set again).
 * The work did not run here; a retry after {@link #retryAfter()} may find its result. {@link
 * Outcome.InFlightConflict} as an exception.
 */
public final class IdempotencyKeyInFlightException extends IdempotentCallException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  IdempotencyKeyInFlightException(RecordId id, Duration retryAfter) {
    super(
        id,
        "another request with the idempotency key of "
            + id
            + " is still running; retry after "
            + retryAfter,
        null);
    this.retryAfter = retryAfter;
  }

  /** When a retry may find the result. */
  public Duration retryAfter() {
    return retryAfter;
  }
}
