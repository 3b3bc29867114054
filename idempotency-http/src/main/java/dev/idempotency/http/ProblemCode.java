package dev.idempotency.http;

import java.util.Locale;

/**
 * The machine-readable {@code code} of every problem body the handler writes, with its status,
 * title and whether a client may retry the same request unchanged. Clients switch on the code,
 * never on the title or detail.
 */
public enum ProblemCode {
  /** The endpoint requires a key and the request has none. */
  IDEMPOTENCY_KEY_MISSING(400, "Idempotency key missing", false),
  /** The key breaks a rule of the key contract (the problem's {@code rule} member says which). */
  IDEMPOTENCY_KEY_INVALID(400, "Idempotency key invalid", false),
  /**
   * The key was used before for a different request; the status is the configured {@link
   * MismatchStatus}.
   */
  IDEMPOTENCY_KEY_REUSED(409, "Idempotency key reused with a different request", false),
  /** Another request with the same key is still running; retry after {@code Retry-After}. */
  IDEMPOTENCY_REQUEST_IN_FLIGHT(409, "Request with this idempotency key is in flight", true),
  /** The key store cannot be reached; nothing ran; retry after {@code Retry-After}. */
  IDEMPOTENCY_STORE_UNAVAILABLE(503, "Idempotency store unavailable", true),
  /** The request body exceeds the limit; nothing was claimed or run. */
  REQUEST_TOO_LARGE(413, "Request too large", false),
  /**
   * No scope could be resolved (no authenticated principal) and no anonymous scope is configured.
   */
  IDEMPOTENCY_SCOPE_UNRESOLVED(401, "Idempotency scope unresolved", false),
  /**
   * Stored in place of a response that exceeded the storable limit: the request was processed, its
   * response cannot be replayed, and retrying will not run it again.
   */
  IDEMPOTENCY_RESPONSE_NOT_STORED(500, "Idempotent response not stored", false),
  /**
   * The status endpoint knows no request with this key in the caller's scope (never sent, failed,
   * or expired).
   */
  IDEMPOTENCY_REQUEST_NOT_FOUND(404, "No request with this idempotency key", false);

  private final int defaultStatus;
  private final String title;
  private final boolean retryable;

  ProblemCode(int defaultStatus, String title, boolean retryable) {
    this.defaultStatus = defaultStatus;
    this.title = title;
    this.retryable = retryable;
  }

  /** The code as it appears in the body, for example {@code idempotency_key_missing}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The status this problem is answered with (for {@link #IDEMPOTENCY_KEY_REUSED}: the default,
   * 409).
   */
  public int defaultStatus() {
    return defaultStatus;
  }

  /** The problem's short, stable title. */
  public String title() {
    return title;
  }

  /** Whether the same request may be retried unchanged and succeed. */
  public boolean retryable() {
    return retryable;
  }
}
