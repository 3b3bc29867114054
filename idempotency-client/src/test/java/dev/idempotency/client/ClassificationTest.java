package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The allowlist, status by status and exception by exception. */
class ClassificationTest {
  private final RetryPolicy policy = RetryPolicy.ofDefaults();

  /**
   * Of every status 100 to 599 without a problem body, exactly 429, 502, 503 and 504 are retryable.
   */
  @Test
  void onlyTheAllowlistedStatusesAreRetryable() {
    Set<Integer> retryable = new TreeSet<>();
    for (int status = 100; status <= 599; status++) {
      if (policy.classify("POST", true, status, null, null).isRetryable()) {
        retryable.add(status);
      }
    }
    assertThat(retryable).containsExactly(429, 502, 503, 504);
  }

  @Test
  void throttlingAndTransientKindsPriceTheBudget() {
    assertThat(policy.classify("GET", false, 429, null, null).kind())
        .contains(RetryKind.THROTTLING);
    assertThat(policy.classify("GET", false, 503, null, null).kind()).contains(RetryKind.TRANSIENT);
    assertThat(policy.classify("POST", true, 409, "idempotency_request_in_flight", true).kind())
        .contains(RetryKind.THROTTLING);
  }

  /**
   * Only the in-flight 409 is retried; a reused key (payload mismatch) is a client bug, never
   * retried.
   */
  @Test
  void the409sAreToldApartByTheirProblemCode() {
    assertThat(
            policy.classify("POST", true, 409, "idempotency_request_in_flight", null).isRetryable())
        .isTrue();
    assertThat(policy.classify("POST", true, 409, "idempotency_key_reused", false).isRetryable())
        .isFalse();
    assertThat(policy.classify("POST", true, 409, null, null).isRetryable()).isFalse();
    assertThat(
            policy.classify("POST", true, 503, "idempotency_store_unavailable", true).isRetryable())
        .isTrue();
  }

  /** 500 is retried only when configured or marked retryable by the server. */
  @Test
  void a500IsRetriedOnlyWhenConfiguredOrMarked() {
    assertThat(policy.classify("GET", false, 500, null, null).isRetryable()).isFalse();
    assertThat(policy.classify("GET", false, 500, "boom", true).isRetryable()).isTrue();
    RetryPolicy configured = RetryPolicy.builder().retryOn500(true).build();
    assertThat(configured.classify("GET", false, 500, null, null).isRetryable()).isTrue();
    assertThat(configured.classify("GET", false, 501, null, null).isRetryable()).isFalse();
  }

  /**
   * A 502 or 504 may mean a gateway forwarded the request and lost the answer: the uncertainty of a
   * read timeout. Keyless unsafe requests are not re-sent; keyed ones and idempotent methods are.
   */
  @ParameterizedTest
  @ValueSource(ints = {502, 504})
  void aGatewayFailureIsRetriedOnlyForIdempotentOrKeyedRequests(int status) {
    assertThat(policy.classify("POST", false, status, null, null).isRetryable())
        .as("keyless POST")
        .isFalse();
    assertThat(policy.classify("DELETE", false, status, null, null).isRetryable())
        .as("keyless DELETE")
        .isFalse();
    assertThat(policy.classify("PATCH", false, status, null, null).isRetryable())
        .as("keyless PATCH")
        .isFalse();
    assertThat(policy.classify("POST", false, status, null, null).reason())
        .contains("without an idempotency key")
        .contains("not re-sent");
    assertThat(policy.classify("POST", true, status, null, null).kind())
        .as("keyed POST")
        .contains(RetryKind.TRANSIENT);
    assertThat(policy.classify("DELETE", true, status, null, null).isRetryable())
        .as("keyed DELETE")
        .isTrue();
    assertThat(policy.classify("GET", false, status, null, null).kind())
        .as("GET")
        .contains(RetryKind.TRANSIENT);
    assertThat(policy.classify("get", false, status, null, null).isRetryable())
        .as("lower-case GET")
        .isTrue();
    assertThat(policy.classify("HEAD", false, status, null, null).isRetryable())
        .as("HEAD")
        .isTrue();
    RetryPolicy deleteIsIdempotent =
        RetryPolicy.builder().idempotentMethods("GET", "HEAD", "DELETE").build();
    assertThat(deleteIsIdempotent.classify("DELETE", false, status, null, null).isRetryable())
        .as("DELETE declared idempotent")
        .isTrue();
    // a problem body marked "retryable": true does not lift the gate (it says "transient", not "not
    // processed")
    assertThat(policy.classify("POST", false, status, "upstream", true).isRetryable()).isFalse();
  }

  /**
   * A 500 retried through retryOn500 or "retryable": true is under the same gate as 502 and 504.
   */
  @Test
  void a500RetriedByConfigurationOrMarkIsRetriedOnlyForIdempotentOrKeyedRequests() {
    RetryPolicy configured = RetryPolicy.builder().retryOn500(true).build();
    for (RetryPolicy p : new RetryPolicy[] {policy, configured}) {
      Boolean mark = p == policy ? Boolean.TRUE : null;
      String as = p == policy ? "\"retryable\": true" : "retryOn500";
      assertThat(p.classify("POST", false, 500, "glitch", mark).isRetryable())
          .as("keyless POST, %s", as)
          .isFalse();
      assertThat(p.classify("DELETE", false, 500, "glitch", mark).isRetryable())
          .as("keyless DELETE, %s", as)
          .isFalse();
      assertThat(p.classify("POST", true, 500, "glitch", mark).kind())
          .as("keyed POST, %s", as)
          .contains(RetryKind.TRANSIENT);
      assertThat(p.classify("DELETE", true, 500, "glitch", mark).isRetryable())
          .as("keyed DELETE, %s", as)
          .isTrue();
      assertThat(p.classify("GET", false, 500, "glitch", mark).isRetryable())
          .as("GET, %s", as)
          .isTrue();
    }
    assertThat(policy.classify("POST", true, 500, null, null).isRetryable())
        .as("unmarked, unconfigured")
        .isFalse();
  }

  /** 429 and 503 mean "not processed" by convention: retried for any method, keyed or not. */
  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST", "PATCH", "PUT", "DELETE"})
  void throttlingAndUnavailableAreRetriedForAnyMethod(String method) {
    assertThat(policy.classify(method, false, 429, null, null).kind())
        .contains(RetryKind.THROTTLING);
    assertThat(policy.classify(method, false, 503, null, null).kind())
        .contains(RetryKind.TRANSIENT);
    assertThat(
            policy
                .classify(method, false, 503, "idempotency_store_unavailable", true)
                .isRetryable())
        .isTrue();
  }

  /**
   * Every status below 400 is final, and its verdict is one shared instance (nothing is built per
   * response).
   */
  @Test
  void successfulStatusesShareOneFinalVerdict() {
    RetryVerdict ok = policy.classify("GET", false, 200, null, null);
    assertThat(ok.isRetryable()).isFalse();
    assertThat(ok.kind()).isEmpty();
    assertThat(ok.reason()).contains("final response");
    for (int status = 100; status < 400; status++) {
      assertThat(policy.classify("POST", status % 2 == 0, status, "code", Boolean.TRUE))
          .isSameAs(ok);
    }
    assertThat(policy.classify("GET", false, 400, null, null).reason()).startsWith("HTTP 400");
  }

  /** Auth failures and other 4xx are never retried, whatever the body claims. */
  @ParameterizedTest
  @ValueSource(ints = {400, 401, 403, 404, 405, 410, 412, 413, 422})
  void clientErrorsAreNeverRetried(int status) {
    boolean marked = status == 401 || status == 403;
    assertThat(
            policy.classify("GET", false, status, null, marked ? Boolean.TRUE : null).isRetryable())
        .isFalse();
  }

  @Test
  void aServerThatSaysRetryableFalseIsBelieved() {
    assertThat(policy.classify("GET", false, 503, "maintenance", false).isRetryable()).isFalse();
  }

  /** No connection means the request was never sent: retryable for every method, key or not. */
  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST", "PATCH", "PUT", "DELETE"})
  void connectFailuresAreRetryableForEveryMethod(String method) {
    assertThat(
            policy
                .classify(method, false, new ConnectException("Connection refused"))
                .isRetryable())
        .isTrue();
    assertThat(
            policy
                .classify(method, false, new HttpConnectTimeoutException("connect timed out"))
                .isRetryable())
        .isTrue();
    assertThat(policy.classify(method, false, new NoRouteToHostException()).isRetryable()).isTrue();
  }

  /**
   * A failure an adapter reports as not processed (HTTP/2's REFUSED_STREAM, a pool wait cut off) is
   * retryable for every method, key or not, whatever the transport's own failure was.
   */
  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST", "PATCH", "PUT", "DELETE"})
  void aRequestNotProcessedIsRetryableForEveryMethod(String method) {
    RetryVerdict verdict =
        policy.classify(
            method,
            false,
            new RequestNotProcessedException(
                "refused", new IOException("stream was reset: REFUSED_STREAM")));
    assertThat(verdict.isRetryable()).isTrue();
    assertThat(verdict.kind()).contains(RetryKind.TRANSIENT);
    assertThat(verdict.reason()).contains("the request was not processed");
  }

  /**
   * A read timeout or a connection lost after sending is retried for idempotent methods, or with a
   * key.
   */
  @Test
  void failuresAfterSendingNeedAnIdempotentMethodOrAKey() {
    IOException[] afterSend = {
      new HttpTimeoutException("request timed out"),
      new SocketException("Connection reset"),
      new EOFException("EOF reached while reading"),
      new IOException("HTTP/1.1 header parser received no bytes"),
    };
    for (IOException e : afterSend) {
      assertThat(policy.classify("GET", false, e).isRetryable()).as("GET %s", e).isTrue();
      assertThat(policy.classify("HEAD", false, e).isRetryable()).as("HEAD %s", e).isTrue();
      assertThat(policy.classify("POST", false, e).isRetryable()).as("POST %s", e).isFalse();
      assertThat(policy.classify("PATCH", false, e).isRetryable()).as("PATCH %s", e).isFalse();
      assertThat(policy.classify("PUT", false, e).isRetryable()).as("PUT %s", e).isFalse();
      assertThat(policy.classify("DELETE", false, e).isRetryable()).as("DELETE %s", e).isFalse();
      assertThat(policy.classify("POST", true, e).isRetryable()).as("keyed POST %s", e).isTrue();
      assertThat(policy.classify("PATCH", true, e).isRetryable()).as("keyed PATCH %s", e).isTrue();
    }
    RetryPolicy putIsIdempotent =
        RetryPolicy.builder().idempotentMethods("GET", "PUT", "DELETE").build();
    assertThat(putIsIdempotent.classify("PUT", false, new HttpTimeoutException("t")).isRetryable())
        .isTrue();
    assertThat(
            putIsIdempotent.classify("DELETE", false, new SocketException("reset")).isRetryable())
        .isTrue();
  }

  /** Configuration errors and bugs are not on the list. */
  /**
   * The read timeout of HttpURLConnection, OkHttp and Apache HttpClient: the request may have been
   * processed, so it is retried like the JDK client's own {@code HttpTimeoutException}, only for an
   * idempotent method or a keyed request.
   */
  @Test
  void aSocketTimeoutIsAReadTimeout() {
    SocketTimeoutException timeout = new SocketTimeoutException("Read timed out");

    assertThat(policy.classify("GET", false, timeout).isRetryable()).isTrue();
    assertThat(policy.classify("POST", true, timeout).isRetryable()).isTrue();
    RetryVerdict unkeyed = policy.classify("POST", false, timeout);
    assertThat(unkeyed.isRetryable()).isFalse();
    assertThat(unkeyed.reason()).contains("a read timeout", "without an idempotency key");
  }

  @Test
  void everythingElseIsNotRetried() {
    Throwable[] never = {
      new UnknownHostException("nope.invalid"),
      new SSLHandshakeException("bad certificate"),
      new IllegalArgumentException("bug"),
      new NullPointerException(),
      new IllegalStateException(),
      new UncheckedIOException(new IOException("wrapped")),
      new OutOfMemoryError(),
    };
    for (Throwable t : never) {
      assertThat(policy.classify("GET", true, t).isRetryable()).as("%s", t).isFalse();
    }
  }

  @Test
  void asyncWrappersAreUnwrapped() {
    assertThat(
            policy
                .classify("POST", false, new CompletionException(new ConnectException("refused")))
                .isRetryable())
        .isTrue();
    assertThat(
            policy
                .classify(
                    "POST",
                    false,
                    new ExecutionException(
                        new CompletionException(new ConnectException("refused"))))
                .isRetryable())
        .isTrue();
    assertThat(
            policy
                .classify("POST", false, new CompletionException(new IllegalArgumentException()))
                .isRetryable())
        .isFalse();
  }
}
