package dev.idempotency.internal;

import dev.idempotency.KeyState;
import java.util.Objects;

/**
 * The transition table of {@link KeyState}: every legal move, with its name. A move not in this
 * table is a bug in a store or the engine, and {@link #of(KeyState, KeyState, TransitionCause)}
 * reports it by throwing {@link IllegalStateTransitionException}.
 *
 * <table>
 *   <caption>Legal transitions</caption>
 *   <tr><th>transition</th><th>from</th><th>to</th><th>caused by</th></tr>
 *   <tr><td>{@link #CLAIM}</td><td>ABSENT</td><td>IN_FLIGHT</td><td>a claim of an absent key</td></tr>
 *   <tr><td>{@link #TAKE_OVER}</td><td>IN_FLIGHT</td><td>IN_FLIGHT</td><td>a claim after the lease expired (new fence)</td></tr>
 *   <tr><td>{@link #HEARTBEAT}</td><td>IN_FLIGHT</td><td>IN_FLIGHT</td><td>the owner extends its lease</td></tr>
 *   <tr><td>{@link #CHECKPOINT}</td><td>IN_FLIGHT</td><td>IN_FLIGHT</td><td>the owner records a recovery point</td></tr>
 *   <tr><td>{@link #COMPLETE}</td><td>IN_FLIGHT</td><td>COMPLETE</td><td>the owner stores the result</td></tr>
 *   <tr><td>{@link #RELEASE}</td><td>IN_FLIGHT</td><td>ABSENT</td><td>the owner gives the key up (nothing committed)</td></tr>
 *   <tr><td>{@link #EXPIRE}</td><td>COMPLETE</td><td>ABSENT</td><td>the replay window passed</td></tr>
 *   <tr><td>{@link #PURGE}</td><td>COMPLETE or IN_FLIGHT</td><td>ABSENT</td><td>the reaper deletes a record past retention</td></tr>
 * </table>
 *
 * <p>Not in the table, therefore illegal: ABSENT → COMPLETE (a result without a claim), COMPLETE →
 * IN_FLIGHT within the window (re-running a completed request), COMPLETE → COMPLETE (changing a
 * stored result), and anything out of ABSENT but a claim.
 */
public enum StateTransition {
  /** ABSENT → IN_FLIGHT: a claim wins an absent key. */
  CLAIM(KeyState.ABSENT, KeyState.IN_FLIGHT, TransitionCause.CLAIM),
  /** IN_FLIGHT → IN_FLIGHT: a claim takes over a key whose lease expired; the fence grows. */
  TAKE_OVER(KeyState.IN_FLIGHT, KeyState.IN_FLIGHT, TransitionCause.CLAIM),
  /** IN_FLIGHT → IN_FLIGHT: the owner extends its lease. */
  HEARTBEAT(KeyState.IN_FLIGHT, KeyState.IN_FLIGHT, TransitionCause.HEARTBEAT),
  /** IN_FLIGHT → IN_FLIGHT: the owner records a recovery point. */
  CHECKPOINT(KeyState.IN_FLIGHT, KeyState.IN_FLIGHT, TransitionCause.CHECKPOINT),
  /** IN_FLIGHT → COMPLETE: the owner stores the result. */
  COMPLETE(KeyState.IN_FLIGHT, KeyState.COMPLETE, TransitionCause.COMPLETE),
  /** IN_FLIGHT → ABSENT: the owner releases the key because nothing was committed. */
  RELEASE(KeyState.IN_FLIGHT, KeyState.ABSENT, TransitionCause.RELEASE),
  /** COMPLETE → ABSENT: the replay window passed; a reused key is a new request. */
  EXPIRE(KeyState.COMPLETE, KeyState.ABSENT, TransitionCause.TIME),
  /** COMPLETE → ABSENT: the reaper deleted a completed record past retention. */
  PURGE(KeyState.COMPLETE, KeyState.ABSENT, TransitionCause.PURGE),
  /** IN_FLIGHT → ABSENT: the reaper deleted an abandoned in-flight record past retention. */
  PURGE_ABANDONED(KeyState.IN_FLIGHT, KeyState.ABSENT, TransitionCause.PURGE);

  /** What asks for a transition; together with the two states it picks one row of the table. */
  public enum TransitionCause {
    /** A claim ({@code KeyStore.claim}). */
    CLAIM,
    /** A heartbeat of the owner. */
    HEARTBEAT,
    /** A checkpoint of the owner. */
    CHECKPOINT,
    /** A completion by the owner. */
    COMPLETE,
    /** A release by the owner. */
    RELEASE,
    /** The passing of time (the replay window). */
    TIME,
    /** The reaper. */
    PURGE
  }

  private final KeyState from;
  private final KeyState to;
  private final TransitionCause cause;

  StateTransition(KeyState from, KeyState to, TransitionCause cause) {
    this.from = from;
    this.to = to;
    this.cause = cause;
  }

  /** The state this transition leaves. */
  public KeyState from() {
    return from;
  }

  /** The state this transition enters. */
  public KeyState to() {
    return to;
  }

  /** What causes this transition. */
  public TransitionCause cause() {
    return cause;
  }

  /**
   * Looks up the transition from {@code from} to {@code to} caused by {@code cause}.
   *
   * @return the legal transition
   * @throws NullPointerException if an argument is null
   * @throws IllegalStateTransitionException if the table has no such row
   */
  public static StateTransition of(KeyState from, KeyState to, TransitionCause cause) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(cause, "cause");
    for (StateTransition t : values()) {
      if (t.from == from && t.to == to && t.cause == cause) {
        return t;
      }
    }
    throw new IllegalStateTransitionException(from, to, cause);
  }

  /** Whether the table has a row from {@code from} to {@code to} for {@code cause}. */
  public static boolean isLegal(KeyState from, KeyState to, TransitionCause cause) {
    try {
      of(from, to, cause);
      return true;
    } catch (IllegalStateTransitionException e) {
      return false;
    }
  }
}
