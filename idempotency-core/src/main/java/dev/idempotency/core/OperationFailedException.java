package dev.idempotency.core;

import dev.idempotency.RecordId;

/**
 * The operation threw instead of returning a response. {@link #getCause()} is what it threw.
 * Whether a retry runs the request anew or resumes it depends on {@link #keyReleased()}.
 */
public final class OperationFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient RecordId id;
  private final boolean keyReleased;

  OperationFailedException(RecordId id, boolean keyReleased, Throwable cause) {
    super(
        "Operation for "
            + id
            + " failed; "
            + (keyReleased
                ? "nothing had committed, so the key was released and a retry runs it anew"
                : "a phase had committed, so the key stays in flight and a retry (or the completer) resumes it"),
        cause);
    this.id = id;
    this.keyReleased = keyReleased;
  }

  /** The record whose operation failed. */
  public RecordId id() {
    return id;
  }

  /**
   * True when the key was released (nothing had committed; a retry runs anew); false when it stays
   * in flight (a phase had committed, or the release itself failed; a retry after the lease resumes
   * it).
   */
  public boolean keyReleased() {
    return keyReleased;
  }
}
