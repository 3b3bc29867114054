package dev.idempotency.core;

import dev.idempotency.RecordId;
import org.jspecify.annotations.Nullable;

/**
 * An {@link IdempotentCall} did not return a result: its key is held by another request, or was
 * used for another request, or its work failed. Unchecked, so that the call reads like the plain
 * method call it guards; {@link IdempotencyEngine#execute} returns the same cases as an {@link
 * Outcome} instead.
 */
public abstract class IdempotentCallException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient RecordId id;

  IdempotentCallException(RecordId id, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.id = id;
  }

  /** The scope and key of the call. */
  public RecordId id() {
    return id;
  }
}
