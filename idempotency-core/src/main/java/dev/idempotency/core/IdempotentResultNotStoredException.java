package dev.idempotency.core;

import dev.idempotency.RecordId;

/**
 * The work of an earlier {@link IdempotentCall} under this key ran, but its result could not be
 * stored (larger than the store keeps, or refused by it), so the not-stored marker was stored in
 * its place: the work does not run again within the replay window, and its result cannot be
 * replayed. Find out what it did by other means (the work's own records); do not retry under the
 * same key expecting a result.
 */
public final class IdempotentResultNotStoredException extends IdempotentCallException {
  private static final long serialVersionUID = 1L;

  private final String reason;

  IdempotentResultNotStoredException(RecordId id, String reason) {
    super(
        id,
        "the work under the idempotency key of "
            + id
            + " ran, but its result was not stored ("
            + reason
            + "): it does not run again within the replay window, and its result cannot be"
            + " replayed",
        null);
    this.reason = reason;
  }

  /** The original status and why the result was not stored, as the marker says. */
  public String reason() {
    return reason;
  }
}
