package dev.idempotency.openapi.internal;

/**
 * How one gate fared on one operation.
 *
 * @param detail what was sent and answered, for a person
 * @param revealsAntiPattern whether the failure is the gate's anti-pattern ({@link Gate#reveals()})
 *     rather than another broken promise (a replay not marked, a window longer than stated)
 */
public record GateResult(Gate gate, Status status, String detail, boolean revealsAntiPattern) {
  /** The outcome of a gate. */
  public enum Status {
    /** The API did what the gate asks. */
    PASS,
    /** It did not: the detail says what it did, and the anti-pattern when it is one. */
    FAIL,
    /** What was observed cannot tell (the first request finished before the second was seen). */
    INCONCLUSIVE,
    /** Not run: the detail says why (no window stated, no other body, no limits declared). */
    NOT_TESTED,
    /** A request failed, or the request was not accepted; the detail says which. */
    ERROR
  }

  static GateResult pass(Gate gate, String detail) {
    return new GateResult(gate, Status.PASS, detail, false);
  }

  /** A failure that reveals the gate's anti-pattern. */
  static GateResult antiPattern(Gate gate, String detail) {
    return new GateResult(gate, Status.FAIL, detail, gate.antiPattern() > 0);
  }

  /** A failure that is none of the eleven anti-patterns. */
  static GateResult fail(Gate gate, String detail) {
    return new GateResult(gate, Status.FAIL, detail, false);
  }

  static GateResult of(Gate gate, Status status, String detail) {
    return new GateResult(gate, status, detail, false);
  }
}
