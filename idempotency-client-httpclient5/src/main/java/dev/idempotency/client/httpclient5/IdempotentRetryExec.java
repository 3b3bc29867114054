package dev.idempotency.client.httpclient5;

import dev.idempotency.client.LookupDeadline;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryLoop;
import dev.idempotency.client.RetryPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.util.Timeout;
import org.jspecify.annotations.Nullable;

/**
 * The client half as an Apache HttpClient 5 exec-chain handler: one {@code Idempotency-Key} per
 * logical call, sent unchanged on every attempt, and the retries of {@code idempotency-client}'s
 * {@link RetryPolicy} (the allowlist, full jitter, the attempt bound, {@code Retry-After}, one
 * deadline and the budget shared by every call of the client).
 *
 * <pre>{@code
 * CloseableHttpClient http = IdempotentRetryExec.install(HttpClients.custom()).build();
 * HttpPost confirm = new HttpPost("https://api.example.com/orders/4711/confirm");
 * confirm.setEntity(new StringEntity("{\"amount\":100}", ContentType.APPLICATION_JSON));
 * HttpClientContext context = HttpClientContext.create();
 * context.setAttribute(IdempotentRetryExec.KEY_ATTRIBUTE, OperationKey.forEvent("order-confirm", "4711"));
 * String body = http.execute(confirm, context, r -> EntityUtils.toString(r.getEntity()));
 * }</pre>
 *
 * <p><b>It replaces the client's retry strategy.</b> {@link #install(HttpClientBuilder)} switches
 * the built-in retries off ({@code disableAutomaticRetries()}: {@code
 * DefaultHttpRequestRetryStrategy} re-sends PUT and DELETE after a lost connection, idempotent by
 * RFC 9110 but not always by an API, and re-sends any method after a 429 or 503) and puts this
 * handler first in the exec chain, outside the redirect, decompression, protocol and connection
 * handling: every attempt gets a fresh connection lease and follows redirects on its own, and the
 * handler reads responses decompressed (a gzipped problem body's {@code retryable} member counts).
 * Every method goes through the one policy: GET, HEAD, OPTIONS and TRACE are retried after a lost
 * connection or a read timeout, other methods only with a key.
 *
 * <p><b>The key.</b> Taken from the context attribute {@link #KEY_ATTRIBUTE} (an {@link
 * OperationKey}), else from an {@code Idempotency-Key} header the caller set, else minted once for
 * a POST or PATCH when the call enters the handler, before its first attempt.
 *
 * <p><b>Time.</b> Each attempt gets {@code min(attemptTimeout, time left)}: as its response timeout
 * (the socket timeout, which restarts with every byte), as its wait for a pooled connection, and as
 * a timer from the attempt's start. The response, head and body, is read within the attempt, into
 * memory; a response still incomplete when the timer ends is cut off (the connection is discarded)
 * and the attempt fails with a {@link SocketTimeoutException}, however slowly its bytes trickle in.
 * A body cut off by the server ({@code ConnectionClosedException}) or a connection closed without a
 * response ({@code NoHttpResponseException}) is a lost connection on the allowlist. The connect is
 * bounded by the attempt too; a refused connection, or an attempt that ran out before it connected,
 * is retried for any method. The name lookup is bounded only through a {@link DeadlineDnsResolver}
 * on the connection manager. For downloads larger than memory, use a client without this handler.
 *
 * <p><b>Stops.</b> A final response is returned; a retryable one that runs out of attempts, time or
 * budget throws {@link dev.idempotency.client.RetriesExhaustedException} (an {@link IOException})
 * with that response in {@code lastResponse()}; an aborted request is never retried. A request
 * entity that is not repeatable is sent once, keyed. The waits block the calling thread.
 *
 * <p>Thread-safe: one instance serves every call of a client, and that is what shares its budget.
 */
public final class IdempotentRetryExec implements ExecChainHandler {
  /** The name of this handler in the exec chain. */
  public static final String NAME = "idempotency-retry";

  /** The context attribute that carries a call's {@link OperationKey}. */
  public static final String KEY_ATTRIBUTE = "dev.idempotency.client.OperationKey";

  private final RetryPolicy policy;
  private final Supplier<OperationKey> keyMinter;

  private IdempotentRetryExec(RetryPolicy policy, Supplier<OperationKey> keyMinter) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.keyMinter = Objects.requireNonNull(keyMinter, "keyMinter");
  }

  /**
   * A handler with {@code policy}; POST and PATCH without a key get a random one.
   *
   * @param policy the policy; its budget is shared by every call through the handler
   * @return the handler
   */
  public static IdempotentRetryExec of(RetryPolicy policy) {
    return new IdempotentRetryExec(policy, OperationKey::random);
  }

  /**
   * A handler with {@code policy} and a key minter of the caller's.
   *
   * @param policy the policy
   * @param keyMinter called once per call without a key, before its first attempt
   * @return the handler
   */
  public static IdempotentRetryExec of(RetryPolicy policy, Supplier<OperationKey> keyMinter) {
    return new IdempotentRetryExec(policy, keyMinter);
  }

  /**
   * Installs a handler with the default policy ({@link RetryPolicy#ofDefaults()}).
   *
   * @param builder the client's builder
   * @return {@code builder}
   */
  public static HttpClientBuilder install(HttpClientBuilder builder) {
    return of(RetryPolicy.ofDefaults()).installOn(builder);
  }

  /**
   * Switches the builder's own retries off and puts this handler in their place.
   *
   * @param builder the client's builder
   * @return {@code builder}
   */
  public HttpClientBuilder installOn(HttpClientBuilder builder) {
    return builder.disableAutomaticRetries().addExecInterceptorFirst(NAME, this);
  }

  /** Returns the policy every call through this handler is retried by. */
  public RetryPolicy policy() {
    return policy;
  }

  @Override
  public ClassicHttpResponse execute(
      ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
      throws IOException, HttpException {
    String method = request.getMethod();
    OperationKey key = keyOf(request, scope.clientContext);
    if (key != null) {
      request.setHeader(RetryLoop.KEY_HEADER, key.value());
    }
    HttpEntity entity = request.getEntity();
    RetryPolicy callPolicy =
        entity != null && !entity.isRepeatable()
            ? policy.toBuilder().maxAttempts(1).build()
            : policy;
    RetryLoop loop = RetryLoop.start(callPolicy, method, describe(request), key);
    HttpClientContext context = scope.clientContext;
    RequestConfig callersConfig = context.getRequestConfigOrDefault();
    try {
      while (true) {
        Duration timeout = loop.beginAttempt(null).orElseThrow(loop::deadlinePassed);
        Timeout attemptTimeout = Timeout.ofMilliseconds(Math.max(1, timeout.toMillis()));
        context.setRequestConfig(attemptConfig(callersConfig, attemptTimeout));
        ClassicHttpResponse response = null;
        RetryLoop.Step step;
        // HttpCore's request executor sets it just before it writes the request's head: until
        // then, a failure of this attempt left nothing at the server
        context.setEndpointDetails(null);
        AttemptTimer timer = AttemptTimer.start(scope, timeout);
        LookupDeadline.begin(System.nanoTime() + timeout.toNanos()); // for DeadlineDnsResolver
        try {
          // a copy per attempt: the protocol handling below adds headers (Content-Length) to the
          // request it is given, and refuses a request that has them already
          response = chain.proceed(ClassicRequestBuilder.copy(request).build(), scope);
          byte[] body = readWhole(response);
          timer.stop();
          Header retryAfter = response.getFirstHeader("Retry-After");
          Header contentType = response.getFirstHeader("Content-Type");
          step =
              loop.afterResponse(
                  response.getCode(),
                  retryAfter != null ? retryAfter.getValue() : null,
                  RetryLoop.readsProblemBody(
                          response.getCode(), contentType != null ? contentType.getValue() : null)
                      ? body
                      : null,
                  response);
        } catch (IOException | RuntimeException e) {
          boolean cutOff = timer.stop();
          if (!cutOff && scope.execRuntime.isExecutionAborted()) {
            throw e; // aborted by the caller: not a lost connection
          }
          if (response != null) {
            // the body failed halfway: closing the response would read the rest of it
            scope.execRuntime.discardEndpoint();
            response = null;
          }
          step =
              loop.afterFailure(
                  cutOff ? timer.timedOut(e, context.getEndpointDetails() != null) : e);
        } finally {
          timer.stop(); // idempotent: ends the timer on every path, an HttpException's included
          LookupDeadline.end();
        }
        switch (step.action()) {
          case RETURN:
            return Objects.requireNonNull(response, "a RETURN step follows a response");
          case STOP:
            throw step.exception();
          case PROPAGATE:
            throw step.propagated();
          case RETRY:
          default:
            if (response != null) {
              response.close();
            }
            loop.waitBefore(step);
        }
      }
    } finally {
      context.setRequestConfig(callersConfig);
    }
  }

  /**
   * The caller's request configuration with every wait of the attempt bounded by its time: the
   * response (socket) timeout, the wait for a pooled connection and the connect. The timer from the
   * attempt's start cuts what still runs past it, but it cannot end a connect that starts after it
   * fired (while the attempt still waited for its lease), so the connect carries the bound itself.
   */
  // RequestConfig's connect timeout is deprecated in favour of ConnectionConfig's, which is fixed
  // per connection manager; HttpClient 5.6 still reads the request's first, and only it can be
  // the attempt's own
  @SuppressWarnings("deprecation")
  private static RequestConfig attemptConfig(RequestConfig callers, Timeout attemptTimeout) {
    return RequestConfig.copy(callers)
        .setResponseTimeout(attemptTimeout)
        .setConnectionRequestTimeout(attemptTimeout)
        .setConnectTimeout(attemptTimeout)
        .build();
  }

  private @Nullable OperationKey keyOf(ClassicHttpRequest request, HttpClientContext context) {
    Object attribute = context.getAttribute(KEY_ATTRIBUTE);
    if (attribute instanceof OperationKey key) {
      return key;
    }
    Header header = request.getFirstHeader(RetryLoop.KEY_HEADER);
    if (header != null) {
      return OperationKey.of(header.getValue());
    }
    if (RetryLoop.mintsKeyFor(request.getMethod())) {
      return Objects.requireNonNull(keyMinter.get(), "the key minter returned null");
    }
    return null;
  }

  private static String describe(ClassicHttpRequest request) {
    try {
      return RetryLoop.describe(request.getMethod(), request.getUri());
    } catch (java.net.URISyntaxException e) {
      return request.getMethod() + " " + request.getPath();
    }
  }

  /** Reads the whole response body into memory, and puts it back as a byte-array entity. */
  private static byte[] readWhole(ClassicHttpResponse response) throws IOException {
    HttpEntity entity = response.getEntity();
    if (entity == null) {
      return new byte[0];
    }
    byte[] bytes;
    try (InputStream in = entity.getContent()) {
      bytes = in.readAllBytes();
    }
    response.setEntity(
        new ByteArrayEntity(
            bytes,
            entity.getContentType() != null
                ? ContentType.parseLenient(entity.getContentType())
                : null,
            entity.getContentEncoding()));
    return bytes;
  }

  @Override
  public String toString() {
    return "IdempotentRetryExec[" + policy + "]";
  }
}
