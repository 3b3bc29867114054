package dev.idempotency.client;

/** What kind of failure a retry answers, which sets its price in a {@link RetryBudget}. */
public enum RetryKind {
  /**
   * The server asked us to slow down or wait: 429, and the in-flight 409 ({@code
   * idempotency_request_in_flight}). Cheap in the default budget (5 tokens): the server is alive
   * and pacing us.
   */
  THROTTLING,
  /**
   * The server or the network failed: 500 (when allowed), 502, 503, 504, refused and reset
   * connections, timeouts. Expensive in the default budget (14 tokens): when these pile up, retries
   * only add load.
   */
  TRANSIENT
}
