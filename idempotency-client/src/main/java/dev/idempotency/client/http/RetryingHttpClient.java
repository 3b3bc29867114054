package dev.idempotency.client.http;

import dev.idempotency.client.Deadline;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryLoop;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.internal.CapturingBodyHandler;
import dev.idempotency.client.internal.CapturingBodyHandler.Captured;
import dev.idempotency.client.internal.Classifier;
import dev.idempotency.client.internal.RequestBodies;
import dev.idempotency.client.internal.RetryRun;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link HttpClient} with the retry half of the idempotency guarantee: the {@link RetryPolicy}'s
 * allowlist, jittered backoff, attempt bound, deadline and budget, applied to {@code send} and
 * {@code sendAsync}.
 *
 * <pre>{@code
 * RetryingHttpClient client = RetryingHttpClient.create(HttpClient.newHttpClient());
 * HttpRequest post = HttpRequest.newBuilder(URI.create("https://api.example.com/orders/4711/confirm"))
 *     .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
 * IdempotentResponse<String> response = client.call(post)
 *     .idempotencyKey(OperationKey.forEvent("order-confirm", "4711"))
 *     .send(HttpResponse.BodyHandlers.ofString());
 * }</pre>
 *
 * <p>Keys: a request that carries an {@code Idempotency-Key} header keeps it; a POST or PATCH
 * without one gets a random key minted once when the call is built ({@link #call(HttpRequest)}),
 * kept for every attempt. Keying happens even with retries off, because a lower layer (a proxy, the
 * JDK itself) may re-send. Each attempt gets the timeout {@code min(attemptTimeout, the request's
 * own timeout, time left)}, which covers the whole exchange: the JDK enforces it up to the response
 * headers, and the adapter carries it on through the body (a body still incomplete when it runs out
 * fails with {@link ResponseBodyTimeoutException}; for a streaming body, the caller's reads after
 * {@code send} returned are covered too).
 *
 * <p>The caller's body handler and subscriber are the caller's code: what they throw, or fail the
 * body with, propagates unchanged after that one attempt and is never mistaken for a lost
 * connection (which would re-send).
 *
 * <p>Hidden retries below this one: the JDK's {@code HttpClient} itself re-sends once after a
 * failed connect, and re-sends GET/HEAD once on a pooled connection found dead ({@code
 * jdk.httpclient.enableAllMethodRetry} widens that to every method; {@code
 * jdk.httpclient.disableRetryConnect} turns the connect retry off). Those re-sends are invisible to
 * {@link IdempotentResponse#attempts()}; the idempotency key covers them too.
 *
 * <p>Request bodies: every attempt sends the whole body. A publisher that gives each subscriber the
 * same bytes ({@code ofString}, {@code ofByteArray}, {@code ofFile}, {@code noBody}) is subscribed
 * to once per attempt; any other ({@code ofInputStream}, {@code ofByteArrays}, {@code
 * fromPublisher}, {@code concat}), which may give nothing to a second subscriber, is read into
 * memory once before the first attempt (on the calling thread if it reads synchronously, and within
 * the deadline), and those bytes are sent on every attempt. What the caller's publisher fails with
 * propagates unchanged, and nothing is sent. Thread-safe.
 */
public final class RetryingHttpClient {
  /** The request header that carries the key. */
  public static final String KEY_HEADER = RetryLoop.KEY_HEADER;

  /** The methods that get a key minted when the caller gave none: POST and PATCH. */
  public static final Set<String> DEFAULT_AUTO_KEY_METHODS = RetryLoop.AUTO_KEY_METHODS;

  private final HttpClient http;
  private final RetryPolicy policy;
  private final Set<String> autoKeyMethods;
  private final Supplier<OperationKey> keyMinter;

  private RetryingHttpClient(Builder b) {
    this.http = b.http;
    this.policy = Objects.requireNonNull(b.policy, "build() sets the policy");
    this.autoKeyMethods = Set.copyOf(b.autoKeyMethods);
    this.keyMinter = b.keyMinter;
  }

  /**
   * Wraps {@code http} with {@link RetryPolicy#ofDefaults()}.
   *
   * @param http the client that sends each attempt
   * @return the retrying client
   */
  public static RetryingHttpClient create(HttpClient http) {
    return builder(http).build();
  }

  /**
   * A builder.
   *
   * @param http the client that sends each attempt
   * @return a new builder
   */
  public static Builder builder(HttpClient http) {
    return new Builder(http);
  }

  /**
   * Builds a logical call, fixing its idempotency key now, before the first attempt.
   *
   * @param request the request
   * @return the call, to configure (key, deadline) and send
   * @throws IllegalArgumentException if the request's {@code Idempotency-Key} header is not a valid
   *     key
   */
  public HttpCall call(HttpRequest request) {
    Objects.requireNonNull(request, "request");
    Optional<String> header = request.headers().firstValue(KEY_HEADER);
    OperationKey key = null;
    if (header.isPresent()) {
      key = OperationKey.of(header.get().trim());
    } else if (autoKeyMethods.contains(request.method().toUpperCase(Locale.ROOT))) {
      key = Objects.requireNonNull(keyMinter.get(), "keyMinter returned null");
    }
    return new HttpCall(this, request, key);
  }

  /**
   * {@code call(request).send(handler)}.
   *
   * @param request the request
   * @param handler the body handler
   * @param <T> the body type
   * @return the final response
   * @throws dev.idempotency.client.RetriesExhaustedException when the call stopped (see {@link
   *     HttpCall#send})
   * @throws IOException never otherwise
   * @throws InterruptedException if interrupted
   */
  public <T> IdempotentResponse<T> send(HttpRequest request, BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return call(request).send(handler);
  }

  /**
   * {@code call(request).sendAsync(handler)}.
   *
   * @param request the request
   * @param handler the body handler
   * @param <T> the body type
   * @return a future of the final response
   */
  public <T> CompletableFuture<IdempotentResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler) {
    return call(request).sendAsync(handler);
  }

  /** Returns the policy. */
  public RetryPolicy policy() {
    return policy;
  }

  /** Returns the wrapped client. */
  public HttpClient httpClient() {
    return http;
  }

  <T> IdempotentResponse<T> execute(
      HttpRequest request,
      @Nullable OperationKey key,
      @Nullable Deadline deadline,
      BodyHandler<T> handler)
      throws IOException, InterruptedException {
    RetryRun run = newRun(request, key, deadline);
    request = RequestBodies.replayable(request, run);
    while (true) {
      Optional<Duration> timeout = run.beginAttempt(request.timeout().orElse(null));
      if (timeout.isEmpty()) {
        throw run.deadlinePassed();
      }
      CapturingBodyHandler<T> capturing = new CapturingBodyHandler<>(handler, timeout.get());
      HttpResponse<Captured<T>> raw = null;
      Throwable failure = null;
      try {
        raw = http.send(attempt(request, key, timeout.get()), capturing);
      } catch (IOException | RuntimeException | Error e) {
        failure = e; // the JDK wraps what the caller's handler threw; capturing knows what it was
      }
      IdempotentResponse<T> response = null;
      RetryRun.Decision decision;
      if (failure != null) {
        decision = afterFailure(run, capturing, failure);
      } else {
        HttpResponse<Captured<T>> sent =
            Objects.requireNonNull(raw, "send returned neither a response nor a failure");
        response = wrap(sent, run, key);
        decision = afterResponse(run, sent, response);
      }
      switch (decision.action()) {
        case RETURN:
          return returned(response);
        case STOP:
          throw decision.exception();
        case PROPAGATE:
          throw sneaky(decision.bug());
        case RETRY:
        default:
          discard(response);
          policy.environment().sleeper().sleep(decision.delay());
      }
    }
  }

  <T> CompletableFuture<IdempotentResponse<T>> executeAsync(
      HttpRequest request,
      @Nullable OperationKey key,
      @Nullable Deadline deadline,
      BodyHandler<T> handler) {
    CompletableFuture<IdempotentResponse<T>> result = new CompletableFuture<>();
    try {
      RetryRun run = newRun(request, key, deadline);
      var unused =
          RequestBodies.replayableAsync(request, run)
              .whenComplete(
                  (replayable, failure) -> {
                    try {
                      if (failure != null) {
                        result.completeExceptionally(Classifier.unwrap(failure));
                      } else {
                        attemptAsync(run, replayable, key, handler, result);
                      }
                    } catch (RuntimeException | Error e) {
                      result.completeExceptionally(e);
                    }
                  });
    } catch (RuntimeException | Error e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  private <T> void attemptAsync(
      RetryRun run,
      HttpRequest request,
      @Nullable OperationKey key,
      BodyHandler<T> handler,
      CompletableFuture<IdempotentResponse<T>> result) {
    if (result.isDone()) {
      return; // cancelled by the caller: no further attempt
    }
    Optional<Duration> timeout = run.beginAttempt(request.timeout().orElse(null));
    if (timeout.isEmpty()) {
      result.completeExceptionally(run.deadlinePassed());
      return;
    }
    CapturingBodyHandler<T> capturing = new CapturingBodyHandler<>(handler, timeout.get());
    // the callback completes `result` whatever happens, its own failures included: the future
    // whenComplete returns holds nothing that is not in `result` already
    var unused =
        http.sendAsync(attempt(request, key, timeout.get()), capturing)
            .whenComplete(
                (raw, failure) -> {
                  try {
                    IdempotentResponse<T> response = null;
                    RetryRun.Decision decision;
                    if (failure != null) {
                      decision = afterFailure(run, capturing, failure);
                    } else {
                      response = wrap(raw, run, key);
                      decision = afterResponse(run, raw, response);
                    }
                    switch (decision.action()) {
                      case RETURN:
                        result.complete(returned(response));
                        break;
                      case STOP:
                        result.completeExceptionally(decision.exception());
                        break;
                      case PROPAGATE:
                        result.completeExceptionally(decision.bug());
                        break;
                      case RETRY:
                      default:
                        discard(response);
                        policy
                            .environment()
                            .sleeper()
                            .sleepAsync(decision.delay())
                            .whenComplete(
                                (ignored, interrupted) -> {
                                  if (interrupted != null) {
                                    result.completeExceptionally(interrupted);
                                    return;
                                  }
                                  try {
                                    attemptAsync(run, request, key, handler, result);
                                  } catch (RuntimeException | Error e) {
                                    result.completeExceptionally(e);
                                  }
                                });
                    }
                  } catch (RuntimeException | Error e) {
                    result.completeExceptionally(e);
                  }
                });
  }

  /**
   * The response a RETURN decision returns: only an attempt that produced a response is returned.
   */
  private static <T> IdempotentResponse<T> returned(@Nullable IdempotentResponse<T> response) {
    return Objects.requireNonNull(response, "a RETURN decision follows a response");
  }

  private static RetryRun.Decision afterResponse(
      RetryRun run, HttpResponse<? extends Captured<?>> raw, IdempotentResponse<?> response) {
    return run.onResponse(
        raw.statusCode(),
        raw.headers().firstValue("Retry-After").orElse(null),
        raw.body().problem(),
        response);
  }

  /**
   * The caller's own handler failing is its bug, never a lost connection: it propagates, and
   * nothing is re-sent.
   */
  private static RetryRun.Decision afterFailure(
      RetryRun run, CapturingBodyHandler<?> capturing, Throwable failure) {
    Throwable callers = capturing.callerFailure();
    return callers != null
        ? run.onCallerFailure(callers)
        : run.onFailure(capturing.attemptFailure(failure));
  }

  private RetryRun newRun(
      HttpRequest request, @Nullable OperationKey key, @Nullable Deadline deadline) {
    return new RetryRun(
        policy,
        request.method(),
        RetryLoop.describe(request.method(), request.uri()),
        key,
        deadline);
  }

  private static HttpRequest attempt(
      HttpRequest request, @Nullable OperationKey key, Duration timeout) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(request, (name, value) -> !name.equalsIgnoreCase(KEY_HEADER));
    if (key != null) {
      b.setHeader(KEY_HEADER, key.value());
    }
    return b.timeout(timeout).build();
  }

  private static <T> IdempotentResponse<T> wrap(
      HttpResponse<Captured<T>> raw, RetryRun run, @Nullable OperationKey key) {
    return new IdempotentResponse<>(
        raw, raw.body().body(), run.attempts(), Optional.ofNullable(key), run.elapsed());
  }

  /**
   * A retried response's body is dropped; a streaming body (an InputStream) must be closed to free
   * the connection.
   */
  private static void discard(@Nullable IdempotentResponse<?> response) {
    if (response != null && response.body() instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception ignored) {
        // the body is being thrown away; a failure to close it changes nothing for the caller
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }

  @Override
  public String toString() {
    return "RetryingHttpClient[" + policy + ", autoKeyMethods=" + autoKeyMethods + "]";
  }

  /** Builds a {@link RetryingHttpClient}. Not thread-safe. */
  public static final class Builder {
    private final HttpClient http;
    private @Nullable RetryPolicy policy;
    private Set<String> autoKeyMethods = new LinkedHashSet<>(DEFAULT_AUTO_KEY_METHODS);
    private Supplier<OperationKey> keyMinter = OperationKey::random;

    private Builder(HttpClient http) {
      this.http = Objects.requireNonNull(http, "http");
    }

    /**
     * Sets the policy (default {@link RetryPolicy#ofDefaults()}, with its own budget).
     *
     * @param policy the policy
     * @return this builder
     */
    public Builder policy(RetryPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Sets the methods that get a key minted when the caller gave none (default POST, PATCH). Pass
     * none to turn automatic keys off.
     *
     * @param methods HTTP methods, any case
     * @return this builder
     */
    public Builder autoKeyMethods(String... methods) {
      Set<String> set = new LinkedHashSet<>();
      for (String m : methods) {
        set.add(Objects.requireNonNull(m, "methods[]").trim().toUpperCase(Locale.ROOT));
      }
      this.autoKeyMethods = set;
      return this;
    }

    /**
     * Sets how automatic keys are minted (default {@link OperationKey#random()}); called once per
     * logical call, never per attempt.
     *
     * @param keyMinter the minter
     * @return this builder
     */
    public Builder keyMinter(Supplier<OperationKey> keyMinter) {
      this.keyMinter = Objects.requireNonNull(keyMinter, "keyMinter");
      return this;
    }

    /**
     * Builds the client.
     *
     * @return the client
     */
    public RetryingHttpClient build() {
      if (policy == null) {
        policy = RetryPolicy.ofDefaults();
      }
      return new RetryingHttpClient(this);
    }
  }
}
