package dev.idempotency.grpc;

import io.grpc.Status;

/**
 * Why the server binding refused or answered a call itself: the {@code reason} of the {@code
 * google.rpc.ErrorInfo} in the status details (domain {@value #DOMAIN}) and the value of the plain
 * {@value GrpcIdempotencyMetadata#ERROR_REASON} trailer. Clients switch on the reason, never on the
 * status message. Each reason has one status code; the codes are shared with other answers, the
 * reasons are not.
 */
public enum IdempotencyErrorReason {
  /** A method that requires a key was called without {@code idempotency-key}. */
  IDEMPOTENCY_KEY_MISSING(Status.Code.INVALID_ARGUMENT, false),
  /** The key breaks the key syntax; the ErrorInfo's {@code rule} says which rule. */
  IDEMPOTENCY_KEY_INVALID(Status.Code.INVALID_ARGUMENT, false),
  /** The key was used before for another request (another method or other request bytes). */
  IDEMPOTENCY_KEY_REUSED(Status.Code.FAILED_PRECONDITION, false),
  /** The first call with this key is still running; retry after the RetryInfo's delay. */
  IDEMPOTENCY_REQUEST_IN_FLIGHT(Status.Code.ABORTED, true),
  /**
   * The key store could not be reached: the handler did not run, or it stopped at a store call it
   * could not finish (a checkpoint), and the key stays in flight for a retry to resume; retry after
   * the delay.
   */
  IDEMPOTENCY_STORE_UNAVAILABLE(Status.Code.UNAVAILABLE, true),
  /**
   * The key store failed with an error a retry does not change (a misconfigured store, a record of
   * a type it cannot read, a bug in the store), or the engine refused the call (it was closed): a
   * fault of the server. The handler did not run, or it stopped at the store call that failed.
   */
  IDEMPOTENCY_STORE_ERROR(Status.Code.INTERNAL, false),
  /** No caller identity in the call's context to scope the key to. */
  IDEMPOTENCY_SCOPE_UNRESOLVED(Status.Code.UNAUTHENTICATED, false),
  /** The call's deadline had passed before its work could start; nothing was claimed or run. */
  IDEMPOTENCY_DEADLINE_PASSED(Status.Code.DEADLINE_EXCEEDED, false),
  /**
   * The call was processed earlier, but its response could not be stored (larger than {@code
   * maxStoredResponseBytes} or than the store keeps, or refused by the store): it cannot be
   * replayed and retrying never processes it again.
   */
  IDEMPOTENCY_RESPONSE_NOT_STORED(Status.Code.INTERNAL, false),
  /**
   * The server runs its calls on a transport thread (a direct executor), where the binding must not
   * block: a configuration error of the server, not of the call.
   */
  IDEMPOTENCY_BLOCKING_EXECUTOR_REQUIRED(Status.Code.INTERNAL, false);

  /** The ErrorInfo domain of every reason. */
  public static final String DOMAIN = "idempotency.dev";

  private final Status.Code code;
  private final boolean retryable;

  IdempotencyErrorReason(Status.Code code, boolean retryable) {
    this.code = code;
    this.retryable = retryable;
  }

  /** The status code the binding answers with for this reason. */
  public Status.Code code() {
    return code;
  }

  /**
   * Whether a retry with the same key may succeed: true only for the in-flight call and the store
   * outage, the two whose answers carry a RetryInfo and a {@code grpc-retry-pushback-ms}.
   */
  public boolean retryable() {
    return retryable;
  }
}
