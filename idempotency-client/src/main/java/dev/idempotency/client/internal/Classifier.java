package dev.idempotency.client.internal;

import dev.idempotency.client.LookupDeadline;
import dev.idempotency.client.RequestNotProcessedException;
import dev.idempotency.client.RetryKind;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.RetryVerdict;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The retry allowlist. Anything not named here is not retried: an allowlist fails safe when a new
 * failure mode appears, a denylist retries it.
 */
public final class Classifier {
  /** The problem code of the server's "same key still in flight" 409. */
  public static final String IN_FLIGHT = "idempotency_request_in_flight";

  private Classifier() {}

  /**
   * The verdict for every status below 400, built once: the hot path (a success) allocates nothing.
   */
  private static final RetryVerdict FINAL =
      RetryVerdict.doNotRetry("a status below 400 is a final response");

  /**
   * Classifies a response.
   *
   * <p>429 and 503 are retried for any method: by convention they mean the request was not
   * processed, and our server's 503 {@code idempotency_store_unavailable} guarantees it (it is
   * answered before the handler runs). A 502 or 504 (and a 500 retried through {@code retryOn500}
   * or {@code "retryable": true}) may come from a gateway that forwarded the request and lost the
   * answer: the same uncertainty as a read timeout, so it is retried only for an idempotent method
   * or a keyed request, as {@link #classifyFailure} does.
   *
   * @param policy the policy (idempotent methods, {@code retryOn500})
   * @param method the request method
   * @param keyed whether the request carries an idempotency key
   * @param status the HTTP status
   * @param problemCode the problem body's {@code code}, or {@code null}
   * @param problemRetryable the problem body's {@code retryable}, or {@code null}
   * @return the verdict; for every status below 400 one shared instance, built without allocating
   */
  public static RetryVerdict classifyStatus(
      RetryPolicy policy,
      String method,
      boolean keyed,
      int status,
      @Nullable String problemCode,
      @Nullable Boolean problemRetryable) {
    if (status < 400) {
      return FINAL;
    }
    String what = describeStatus(status, problemCode);
    if (status == 401 || status == 403) {
      return RetryVerdict.doNotRetry(
          what + ": authentication and authorization failures are never retried");
    }
    if (Boolean.FALSE.equals(problemRetryable)) {
      return RetryVerdict.doNotRetry(what + ": the server marked it \"retryable\": false");
    }
    return switch (status) {
      case 429 ->
          RetryVerdict.retry(RetryKind.THROTTLING, what + ": throttled, retry after Retry-After");
      case 409 ->
          IN_FLIGHT.equals(problemCode)
              ? RetryVerdict.retry(RetryKind.THROTTLING, what + ": the same key is still in flight")
              : RetryVerdict.doNotRetry(what + " is a conflict a retry would repeat");
      case 503 -> RetryVerdict.retry(RetryKind.TRANSIENT, what + " is on the retry allowlist");
      case 502, 504 -> gated(policy, method, keyed, what, " is on the retry allowlist");
      case 500 -> {
        if (policy.retryOn500()) {
          yield gated(policy, method, keyed, what, ": retryOn500 is set");
        }
        if (Boolean.TRUE.equals(problemRetryable)) {
          yield gated(policy, method, keyed, what, ": the server marked it \"retryable\": true");
        }
        yield RetryVerdict.doNotRetry(
            what + ": a 500 is retried only when configured or marked retryable");
      }
      default -> RetryVerdict.doNotRetry(what + " is not on the retry allowlist");
    };
  }

  /**
   * A status that may have been processed (a gateway forwarded the request and lost the answer) is
   * retried only when re-sending is safe: an idempotent method, or a key the server collapses the
   * duplicate by.
   */
  private static RetryVerdict gated(
      RetryPolicy policy, String method, boolean keyed, String what, String why) {
    if (policy.isIdempotentMethod(method)) {
      return RetryVerdict.retry(RetryKind.TRANSIENT, what + why);
    }
    if (keyed) {
      return RetryVerdict.retry(
          RetryKind.TRANSIENT,
          what
              + why
              + " ("
              + method
              + " with an idempotency key: the server collapses the duplicate)");
    }
    return RetryVerdict.doNotRetry(
        what
            + " on "
            + method
            + " without an idempotency key may have had its effect"
            + " (a gateway may have forwarded it and lost the answer); it is not re-sent");
  }

  /** Returns {@code "HTTP 503"} or {@code "HTTP 503 (code)"}. */
  public static String describeStatus(int status, @Nullable String problemCode) {
    return "HTTP " + status + (problemCode != null ? " (" + problemCode + ")" : "");
  }

  public static RetryVerdict classifyFailure(
      RetryPolicy policy, String method, boolean keyed, Throwable failure) {
    Throwable t = unwrap(failure);
    String what = describe(t);
    if (!(t instanceof IOException)) {
      return RetryVerdict.doNotRetry(what + " is not an I/O failure (bugs are never retried)");
    }
    if (t instanceof RequestNotProcessedException || t instanceof LookupDeadline.Exceeded) {
      return RetryVerdict.retry(RetryKind.TRANSIENT, what + ": the request was not processed");
    }
    if (neverSent(t)) {
      return RetryVerdict.retry(
          RetryKind.TRANSIENT, what + ": no connection, the request was never sent");
    }
    String phase;
    if (t instanceof HttpTimeoutException || t instanceof SocketTimeoutException) {
      phase = "a read timeout";
    } else if (t instanceof SocketException
        || t instanceof EOFException
        || t.getClass() == IOException.class
        || t.getClass().getName().endsWith(".ConnectionExpiredException")
        || isOneOf(t, LOST_AFTER_SENDING)) {
      phase = "a connection lost after the request was sent";
    } else {
      return RetryVerdict.doNotRetry(what + " is not on the retry allowlist");
    }
    if (policy.isIdempotentMethod(method)) {
      return RetryVerdict.retry(
          RetryKind.TRANSIENT, what + ": " + phase + " on idempotent " + method);
    }
    if (keyed) {
      return RetryVerdict.retry(
          RetryKind.TRANSIENT,
          what
              + ": "
              + phase
              + " on "
              + method
              + " with an idempotency key (the server collapses the duplicate)");
    }
    return RetryVerdict.doNotRetry(
        what
            + ": "
            + phase
            + " on "
            + method
            + " without an idempotency key may have had its effect; it is not re-sent");
  }

  /**
   * Whether a request that failed with {@code failure} may have reached the server: only a failure
   * to connect says it did not. (A response body timeout's own message says more: the server had
   * answered.)
   *
   * @param failure the attempt's I/O failure
   * @return a clause for a stop message
   */
  public static String whetherSent(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof RequestNotProcessedException || t instanceof LookupDeadline.Exceeded) {
      return "the request was not processed";
    }
    return neverSent(t)
        ? "the request was never sent"
        : "the request was sent and may have been applied";
  }

  /** No connection was made, so the request never left. */
  private static boolean neverSent(Throwable t) {
    return t instanceof HttpConnectTimeoutException
        || t instanceof ConnectException
        || t instanceof NoRouteToHostException
        || isOneOf(t, NEVER_CONNECTED);
  }

  /**
   * Other HTTP clients' names for a connection lost after the request was sent, matched by name so
   * that this module needs none of them: Apache HttpClient 5's "the server closed the connection
   * without a response", "closed before the message ended" and a chunked body cut off (a truncated
   * chunk is a malformed one). OkHttp reports the same as plain {@link IOException}s and {@link
   * SocketException}s, which are on the list already.
   */
  private static final Set<String> LOST_AFTER_SENDING =
      Set.of(
          "org.apache.hc.core5.http.NoHttpResponseException",
          "org.apache.hc.core5.http.ConnectionClosedException",
          "org.apache.hc.core5.http.MalformedChunkCodingException");

  /**
   * Apache HttpClient 5's connect timeout, a {@link SocketTimeoutException} that would otherwise
   * count as a read timeout, and its timeout of the wait for a pooled connection: no connection was
   * made, so the request never left.
   */
  private static final Set<String> NEVER_CONNECTED =
      Set.of(
          "org.apache.hc.client5.http.ConnectTimeoutException",
          "org.apache.hc.core5.http.ConnectionRequestTimeoutException");

  /** Whether {@code t}'s class or one of its superclasses is named in {@code names}. */
  private static boolean isOneOf(Throwable t, Set<String> names) {
    for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
      if (names.contains(c.getName())) {
        return true;
      }
    }
    return false;
  }

  public static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  public static String describe(Throwable t) {
    return t.getMessage() == null
        ? t.getClass().getSimpleName()
        : t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
