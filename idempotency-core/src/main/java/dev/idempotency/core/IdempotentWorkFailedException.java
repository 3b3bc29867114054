package dev.idempotency.core;

/**
 * The work of an {@link IdempotentCall} threw a checked exception ({@link #getCause()}), or its
 * result could not be encoded; unchecked exceptions and errors of the work propagate as they were
 * thrown. {@link OperationFailedException} as an unchecked exception.
 */
public final class IdempotentWorkFailedException extends IdempotentCallException {
  private static final long serialVersionUID = 1L;

  private final boolean keyReleased;

  IdempotentWorkFailedException(OperationFailedException failure) {
    super(failure.id(), String.valueOf(failure.getMessage()), failure.getCause());
    this.keyReleased = failure.keyReleased();
  }

  /** As {@link OperationFailedException#keyReleased()}: true when a retry runs the work anew. */
  public boolean keyReleased() {
    return keyReleased;
  }
}
