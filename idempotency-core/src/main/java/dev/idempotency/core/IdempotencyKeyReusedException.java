package dev.idempotency.core;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;

/**
 * The key was used before for a different request (another fingerprint): a bug in the caller, which
 * must mint a new key for a new request. The work did not run and nothing was replayed; a retry
 * with the same key and request gets the same answer. {@link Outcome.Mismatch} as an exception.
 */
public final class IdempotencyKeyReusedException extends IdempotentCallException {
  private static final long serialVersionUID = 1L;

  private final KeyState existingState;

  IdempotencyKeyReusedException(RecordId id, KeyState existingState) {
    super(
        id,
        "the idempotency key of "
            + id
            + " was used before for a different request (its record is "
            + existingState
            + "): mint a new key for a new request",
        null);
    this.existingState = existingState;
  }

  /** The state of the key's record. */
  public KeyState existingState() {
    return existingState;
  }
}
