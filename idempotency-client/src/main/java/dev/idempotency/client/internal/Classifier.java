package dev.idempotency.client.internal;

import dev.idempotency.client.RetryKind;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.RetryVerdict;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The retry allowlist. Anything not named here is not retried: an allowlist fails safe when a new failure mode
 * appears, a denylist retries it.
 */
public final class Classifier {
  /** The problem code of the server's "same key still in flight" 409. */
  public static final String IN_FLIGHT = "idempotency_request_in_flight";

  private Classifier() { }

  public static RetryVerdict classifyStatus(RetryPolicy policy, int status, String problemCode,
      Boolean problemRetryable) {
    String what = "HTTP " + status + (problemCode != null ? " (" + problemCode + ")" : "");
    if (status < 400) {
      return RetryVerdict.doNotRetry(what + " is a final response");
    }
    if (status == 401 || status == 403) {
      return RetryVerdict.doNotRetry(what + ": authentication and authorization failures are never retried");
    }
    if (Boolean.FALSE.equals(problemRetryable)) {
      return RetryVerdict.doNotRetry(what + ": the server marked it \"retryable\": false");
    }
    switch (status) {
      case 429:
        return RetryVerdict.retry(RetryKind.THROTTLING, what + ": throttled, retry after Retry-After");
      case 409:
        if (IN_FLIGHT.equals(problemCode)) {
          return RetryVerdict.retry(RetryKind.THROTTLING, what + ": the same key is still in flight");
        }
        return RetryVerdict.doNotRetry(what + " is a conflict a retry would repeat");
      case 502:
      case 503:
      case 504:
        return RetryVerdict.retry(RetryKind.TRANSIENT, what + " is on the retry allowlist");
      case 500:
        if (policy.retryOn500()) {
          return RetryVerdict.retry(RetryKind.TRANSIENT, what + ": retryOn500 is set");
        }
        if (Boolean.TRUE.equals(problemRetryable)) {
          return RetryVerdict.retry(RetryKind.TRANSIENT, what + ": the server marked it \"retryable\": true");
        }
        return RetryVerdict.doNotRetry(what + ": a 500 is retried only when configured or marked retryable");
      default:
        return RetryVerdict.doNotRetry(what + " is not on the retry allowlist");
    }
  }

  public static RetryVerdict classifyFailure(RetryPolicy policy, String method, boolean keyed, Throwable failure) {
    Throwable t = unwrap(failure);
    String what = describe(t);
    if (!(t instanceof IOException)) {
      return RetryVerdict.doNotRetry(what + " is not an I/O failure (bugs are never retried)");
    }
    if (t instanceof HttpConnectTimeoutException || t instanceof ConnectException
        || t instanceof NoRouteToHostException) {
      return RetryVerdict.retry(RetryKind.TRANSIENT, what + ": no connection, the request was never sent");
    }
    String phase;
    if (t instanceof HttpTimeoutException) {
      phase = "a read timeout";
    } else if (t instanceof SocketException || t instanceof EOFException || t.getClass() == IOException.class
        || t.getClass().getName().endsWith(".ConnectionExpiredException")) {
      phase = "a connection lost after the request was sent";
    } else {
      return RetryVerdict.doNotRetry(what + " is not on the retry allowlist");
    }
    if (policy.isIdempotentMethod(method)) {
      return RetryVerdict.retry(RetryKind.TRANSIENT, what + ": " + phase + " on idempotent " + method);
    }
    if (keyed) {
      return RetryVerdict.retry(RetryKind.TRANSIENT, what + ": " + phase + " on " + method
          + " with an idempotency key (the server collapses the duplicate)");
    }
    return RetryVerdict.doNotRetry(what + ": " + phase + " on " + method
        + " without an idempotency key may have had its effect; it is not re-sent");
  }

  public static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  public static String describe(Throwable t) {
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
