package dev.idempotency.spring;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryLoop;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.spring.internal.BufferedResponse;
import dev.idempotency.spring.internal.TransportRetries;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The client half as a Spring {@code RestClient} (or {@code RestTemplate}) request interceptor: one
 * {@code Idempotency-Key} per logical call, sent unchanged on every attempt, and the retries of
 * {@code idempotency-client}'s {@link RetryPolicy} (the allowlist, full jitter, the attempt bound,
 * {@code Retry-After}, one deadline and the budget shared by every call through this interceptor).
 *
 * <pre>{@code
 * RestClient payments = RestClient.builder()
 *     .baseUrl("https://api.example.com")
 *     .requestFactory(new JdkClientHttpRequestFactory(HttpClient.newHttpClient()))
 *     .requestInterceptor(IdempotentRestClient.create())
 *     .build();
 * Confirmation c = payments.post().uri("/orders/4711/confirm")
 *     .attribute(IdempotentRestClient.KEY_ATTRIBUTE, OperationKey.forEvent("order-confirm", "4711"))
 *     .body(confirm).retrieve().body(Confirmation.class);
 * }</pre>
 *
 * <p><b>The key.</b> Taken from the request attribute {@link #KEY_ATTRIBUTE} (an {@link
 * OperationKey}), else from an {@code Idempotency-Key} header the caller set, else minted once for
 * a POST or PATCH when the call enters the interceptor, before its first attempt; every attempt
 * carries it. A call without a key (a GET, a PUT) is retried only where the allowlist allows it
 * without one.
 *
 * <p><b>The transport's own retries must be off.</b> They would run below the interceptor, where no
 * attempt count, log or budget sees them, and re-send what the policy would not (HttpClient 5 as it
 * ships re-sends a PUT whose answer was lost, and any request answered 429 or 503). Before its
 * first request over a request factory, the interceptor checks the transport and refuses, with an
 * {@link IllegalStateException} that says what to do and before anything is sent: HttpClient 5 with
 * its retries on (which {@code RestClient.builder()} picks by itself when it is on the class path:
 * build its client with {@code disableAutomaticRetries()}), Reactor Netty without {@code
 * disableRetry(true)}, the JDK client under {@code jdk.httpclient.enableAllMethodRetry}, and any
 * factory it does not know, unless declared with {@link Builder#trustRequestFactory(Class)}. Jetty
 * and HttpURLConnection have no retries that re-send a request the server may have processed.
 *
 * <p><b>Time.</b> The interceptor bounds the number of attempts, the waits between them and the
 * deadline at which no further attempt starts. It cannot shorten one attempt: that attempt's
 * timeouts are the request factory's, fixed per factory. Give the factory a read timeout no longer
 * than the policy's {@link RetryPolicy#attemptTimeout()} (for the JDK client, {@code
 * JdkClientHttpRequestFactory.setReadTimeout}), or an attempt may run past the deadline by up to
 * one read timeout. The response body is read whole within its attempt, so a body cut off is a
 * failed attempt, retried like a lost connection; for downloads larger than memory use a client
 * without this interceptor. The waits between attempts block the calling thread through the
 * policy's {@link dev.idempotency.client.Sleeper}.
 *
 * <p><b>Stops.</b> A final response is returned; a retryable one that runs out of attempts, time or
 * budget throws {@link RetriesExhaustedException} (an {@link IOException}, which {@code RestClient}
 * reports as a {@code ResourceAccessException} caused by it), with that response in {@link
 * RetriesExhaustedException#lastResponse()}.
 *
 * <p>Thread-safe: one instance serves every call of a client, and that is what shares its budget.
 */
public final class IdempotentRestClient implements ClientHttpRequestInterceptor {
  /** The request attribute that carries the call's {@link OperationKey}. */
  public static final String KEY_ATTRIBUTE = OperationKey.class.getName();

  private final RetryPolicy policy;
  private final Supplier<OperationKey> keyMinter;
  private final TransportRetries transportRetries;

  private IdempotentRestClient(Builder b) {
    this.policy = b.policy;
    this.keyMinter = b.keyMinter;
    this.transportRetries = new TransportRetries(b.trusted);
  }

  /**
   * An interceptor with the default policy ({@link RetryPolicy#ofDefaults()}) and random keys.
   *
   * @return a new interceptor, with a budget of its own
   */
  public static IdempotentRestClient create() {
    return builder().build();
  }

  /**
   * A builder starting from the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the policy every call through this interceptor is retried by. */
  public RetryPolicy policy() {
    return policy;
  }

  @Override
  public ClientHttpResponse intercept(
      HttpRequest request, byte[] body, ClientHttpRequestExecution execution) throws IOException {
    transportRetries.requireNoneUnder(request);
    String method = request.getMethod().name();
    OperationKey key = keyOf(request);
    if (key != null) {
      request.getHeaders().set(RetryLoop.KEY_HEADER, key.value());
    }
    RetryLoop loop =
        RetryLoop.start(policy, method, RetryLoop.describe(method, request.getURI()), key);
    while (true) {
      // the attempt's timeout is the request factory's (see Time above): only the deadline is used
      if (loop.beginAttempt(null).isEmpty()) {
        throw loop.deadlinePassed();
      }
      BufferedResponse response = null;
      RetryLoop.Step step;
      try {
        response = BufferedResponse.read(execution.execute(request, body));
        int status = response.getStatusCode().value();
        String contentType = response.getHeaders().getFirst("Content-Type");
        step =
            loop.afterResponse(
                status,
                response.getHeaders().getFirst("Retry-After"),
                RetryLoop.readsProblemBody(status, contentType) ? response.bytes() : null,
                response);
      } catch (IOException | RuntimeException e) {
        step = loop.afterFailure(e);
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
          loop.waitBefore(step);
      }
    }
  }

  /**
   * The key of this call: the caller's attribute, else the caller's header, else one minted now for
   * POST and PATCH, once per call (this runs once per call, outside the retry loop).
   */
  private @Nullable OperationKey keyOf(HttpRequest request) {
    Object attribute = request.getAttributes().get(KEY_ATTRIBUTE);
    if (attribute instanceof OperationKey given) {
      return given;
    }
    if (attribute != null) {
      throw new IllegalArgumentException(
          "the request attribute "
              + KEY_ATTRIBUTE
              + " must be an OperationKey, but was a "
              + attribute.getClass().getName());
    }
    String header = request.getHeaders().getFirst(RetryLoop.KEY_HEADER);
    if (header != null) {
      return OperationKey.of(header);
    }
    if (RetryLoop.mintsKeyFor(request.getMethod().name())) {
      return Objects.requireNonNull(keyMinter.get(), "the key minter returned null");
    }
    return null;
  }

  @Override
  public String toString() {
    return "IdempotentRestClient[" + policy + "]";
  }

  /** Builds an {@link IdempotentRestClient}. Not thread-safe. */
  public static final class Builder {
    private RetryPolicy policy = RetryPolicy.ofDefaults();
    private Supplier<OperationKey> keyMinter = OperationKey::random;
    private final List<Class<?>> trusted = new ArrayList<>();

    private Builder() {}

    /**
     * Declares a request factory type that re-sends nothing on its own, so that the interceptor
     * runs over it unchecked. Needed only for a factory other than Spring's over the JDK client,
     * HttpClient 5, Jetty, Reactor Netty and HttpURLConnection, which the interceptor checks
     * itself; {@code ClientHttpRequestFactory.class} trusts every factory.
     *
     * @param type the factory type (its subtypes too)
     * @return this builder
     */
    public Builder trustRequestFactory(Class<? extends ClientHttpRequestFactory> type) {
      trusted.add(Objects.requireNonNull(type, "type"));
      return this;
    }

    /**
     * Sets the policy; its budget is shared by every call through the interceptor.
     *
     * @param policy the policy (default {@link RetryPolicy#ofDefaults()})
     * @return this builder
     */
    public Builder policy(RetryPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Sets how a POST or PATCH without a key of its own gets one; called once per call, before its
     * first attempt, never per attempt.
     *
     * @param keyMinter default {@link OperationKey#random()}
     * @return this builder
     */
    public Builder keyMinter(Supplier<OperationKey> keyMinter) {
      this.keyMinter = Objects.requireNonNull(keyMinter, "keyMinter");
      return this;
    }

    /**
     * Builds the interceptor.
     *
     * @return the interceptor
     */
    public IdempotentRestClient build() {
      return new IdempotentRestClient(this);
    }
  }
}
