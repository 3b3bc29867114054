package dev.idempotency.internal;

import dev.idempotency.KeyState;

/**
 * Thrown when code asks for a move of a key's state that {@link StateTransition}'s table does not
 * have, such as completing a key that was never claimed or changing a stored result. It always
 * means a bug in a store or the engine, never bad client input.
 */
public final class IllegalStateTransitionException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final KeyState from;
  private final KeyState to;
  private final StateTransition.TransitionCause cause;

  /** Creates the exception for the move {@code from} → {@code to} caused by {@code cause}. */
  public IllegalStateTransitionException(
      KeyState from, KeyState to, StateTransition.TransitionCause cause) {
    super(
        "Illegal key state transition "
            + from
            + " -> "
            + to
            + " on "
            + cause
            + ": not in StateTransition's table");
    this.from = from;
    this.to = to;
    this.cause = cause;
  }

  /** The state the move would leave. */
  public KeyState from() {
    return from;
  }

  /** The state the move would enter. */
  public KeyState to() {
    return to;
  }

  /** What asked for the move. */
  public StateTransition.TransitionCause transitionCause() {
    return cause;
  }
}
