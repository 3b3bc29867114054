package dev.idempotency.testing;

/**
 * What {@link FaultInjectingProxy} does with one request. The faults that lose a response act only
 * after the server's whole response has arrived at the proxy: behind the idempotency filter that
 * means the result is already stored (the filter stores before it writes a byte), so what they make
 * is "the side effect happened, the answer did not arrive".
 */
public enum Fault {
  /** Forward, relay the response. */
  FORWARD,
  /**
   * Forward, read the whole response, then close the client's connection without sending a byte.
   */
  FORWARD_THEN_DROP,
  /**
   * Forward, read the whole response, then reset the client's connection (RST) without sending a
   * byte.
   */
  FORWARD_THEN_RESET,
  /** Forward, then relay the status line, the headers and half of the body, and close. */
  FORWARD_THEN_TRUNCATE,
  /**
   * Forward, read the whole response, then hold it back until the client hangs up (past its attempt
   * timeout).
   */
  FORWARD_THEN_STALL,
  /**
   * Forward with the slow-request header ({@link FaultInjectingProxy#slowRequests}), which asks the
   * server to take its time, and close the client's connection after a pause, while the server
   * still processes the request: the client's retry finds the key in flight.
   */
  FORWARD_SLOWED_THEN_DROP,
  /** Reset the client's connection (RST) without forwarding: the server never sees the request. */
  RESET_WITHOUT_FORWARDING,
  /** Answer 503 with a {@code Retry-After} without forwarding, as a shedding load balancer does. */
  ANSWER_503,
  /** Answer 429 with a {@code Retry-After} without forwarding, as a rate limiter in front does. */
  ANSWER_429;

  /**
   * Whether the request reaches the server.
   *
   * @return true if the proxy forwards the request under this fault
   */
  public boolean forwards() {
    return name().startsWith("FORWARD");
  }
}
