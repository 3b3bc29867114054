package dev.idempotency.openapi;

/** How an operation stands, worst last: what the exit status and the report's sections go by. */
public enum Outcome {
  /** Nothing to do. */
  OK,
  /**
   * Works, but a person should look: an idempotent-by-method claim to verify, a gap in the docs.
   */
  WARNING,
  /**
   * A retry of this operation can repeat its effect, or the document promises what the server
   * refuses.
   */
  FAILING;

  /** The worse of this and {@code other}. */
  public Outcome worst(Outcome other) {
    return compareTo(other) >= 0 ? this : other;
  }
}
