package dev.idempotency.http;

/**
 * The status answered when a key is reused with a different request ({@code
 * idempotency_key_reused}). The body is the same problem in each case; only the status differs, to
 * match what clients of other APIs expect.
 */
public enum MismatchStatus {
  /**
   * {@code 409 Conflict}: the default; the request conflicts with the state the key already has.
   */
  CONFLICT(409),
  /**
   * {@code 422 Unprocessable Content}: what the (expired) IETF {@code Idempotency-Key} draft
   * specifies.
   */
  UNPROCESSABLE_CONTENT(422),
  /** {@code 400 Bad Request}: what Stripe answers. */
  BAD_REQUEST(400);

  private final int status;

  MismatchStatus(int status) {
    this.status = status;
  }

  /** The status code. */
  public int status() {
    return status;
  }
}
