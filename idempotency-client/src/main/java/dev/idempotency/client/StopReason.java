package dev.idempotency.client;

/**
 * Why a call stopped retrying; carried by {@link RetriesExhaustedException} and {@link
 * RetryEvent.GaveUp}.
 */
public enum StopReason {
  /** Every allowed attempt ran ({@code maxAttempts}). */
  ATTEMPTS,
  /**
   * The overall deadline left no room for the next wait and attempt, or passed during an attempt
   * (while waiting for the headers or reading the body).
   */
  DEADLINE,
  /** The {@link RetryBudget} was empty: retrying would have added load to a struggling server. */
  BUDGET,
  /**
   * The failure is not on the retry allowlist (an unknown host, a TLS failure, a read timeout of an
   * unsafe request without an idempotency key, ...). Responses that are not retryable are returned,
   * not thrown.
   */
  NOT_RETRYABLE,
  /**
   * The server's {@code Retry-After} asked for a wait longer than the time left; the call stopped
   * at once.
   */
  RETRY_AFTER_BEYOND_DEADLINE
}
