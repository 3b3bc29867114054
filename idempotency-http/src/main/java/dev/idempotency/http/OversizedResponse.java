package dev.idempotency.http;

/**
 * What happens when the application's response (after redaction) is larger than the storable limit.
 * Either way the caller of the first request receives the full response, and a truncated body is
 * never stored or replayed.
 */
public enum OversizedResponse {
  /**
   * The default: store a small marker instead, {@code 500 idempotency_response_not_stored} with
   * {@code retryable: false}, so a retry learns that the request was processed and does not run it
   * again. Safe for every endpoint: the side effect never repeats.
   */
  STORE_MARKER,
  /**
   * Release the key: a retry runs the request again. Only for endpoints whose effect is harmless to
   * repeat (for example a report generated from data the request does not change).
   */
  RELEASE_KEY
}
