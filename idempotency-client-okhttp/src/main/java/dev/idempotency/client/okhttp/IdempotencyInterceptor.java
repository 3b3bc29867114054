package dev.idempotency.client.okhttp;

import dev.idempotency.client.LookupDeadline;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RequestNotProcessedException;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryLoop;
import dev.idempotency.client.RetryPolicy;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * The client half as an OkHttp application interceptor: one {@code Idempotency-Key} per logical
 * call, sent unchanged on every attempt, and the retries of {@code idempotency-client}'s {@link
 * RetryPolicy} (the allowlist, full jitter, the attempt bound, {@code Retry-After}, one deadline
 * and the budget shared by every call through this interceptor).
 *
 * <pre>{@code
 * OkHttpClient http = new OkHttpClient.Builder()
 *     .addInterceptor(IdempotencyInterceptor.create())
 *     .build();
 * Request confirm = new Request.Builder().url("https://api.example.com/orders/4711/confirm")
 *     .post(RequestBody.create("{\"amount\":100}", MediaType.get("application/json")))
 *     .tag(OperationKey.class, OperationKey.forEvent("order-confirm", "4711"))
 *     .build();
 * try (Response response = http.newCall(confirm).execute()) { ... }
 * }</pre>
 *
 * <p><b>The key.</b> Taken from the request's {@code OperationKey} tag, else from an {@code
 * Idempotency-Key} header the caller set, else minted once for a POST or PATCH when the call enters
 * the interceptor, before its first attempt; every attempt carries it. A call without a key (a GET,
 * a PUT) is retried only where the allowlist allows it without one.
 *
 * <p><b>HTTP/2.</b> A stream the server resets with {@code REFUSED_STREAM} (or leaves out of a
 * {@code GOAWAY}) was not processed (RFC 9113 section 8.7): it is retried for any method, keyed or
 * not, as a {@link RequestNotProcessedException}. Any other reset stays off the allowlist.
 *
 * <p><b>OkHttp's own retries are switched off</b> for the calls through this interceptor ({@code
 * Chain.withRetryOnConnectionFailure(false)}): with them on, OkHttp re-sends a request whose
 * connection failed, a POST included, and answers a 408 by re-sending; those re-sends would be
 * invisible here, counted in no attempt and paid from no budget. The interceptor retries the same
 * failures itself, keyed, counted, logged and within the deadline. One re-send no setting turns
 * off: OkHttp sends a 503 with {@code Retry-After: 0} once more on its own; it carries the key.
 *
 * <p><b>Time.</b> Each attempt gets {@code min(attemptTimeout, time left)}: OkHttp's connect, write
 * and read timeouts are set to it, and, because those bound each operation and not the exchange,
 * the response body is read within the attempt under a deadline at the attempt's end (on the body's
 * Okio source). The body is therefore in memory when the call returns, and a body cut off or
 * stalled is a failed attempt, retried like a lost connection. The head has no such deadline (the
 * read timeout restarts with every byte): set OkHttp's {@code callTimeout} to bound the whole call.
 * For downloads larger than memory, use a client without this interceptor. The waits between
 * attempts block the calling thread (for {@code enqueue}, one of OkHttp's dispatcher threads)
 * through the policy's {@link dev.idempotency.client.Sleeper}.
 *
 * <p><b>Stops.</b> A final response is returned; a retryable one that runs out of attempts, time or
 * budget throws {@link RetriesExhaustedException} (an {@link IOException}) from {@code execute},
 * with that response in {@link RetriesExhaustedException#lastResponse()}; a call cancelled by the
 * caller (or by OkHttp's call timeout) is never retried. A request body that is one-shot ({@link
 * RequestBody#isOneShot()}) is sent once, keyed.
 *
 * <p>Thread-safe: one instance serves every call of a client, and that is what shares its budget.
 */
public final class IdempotencyInterceptor implements Interceptor {
  private final RetryPolicy policy;
  private final Supplier<OperationKey> keyMinter;

  /** The client's resolver bounded by the attempt, made once per resolver (see DeadlineDns). */
  private volatile @Nullable DeadlineDns dns;

  private IdempotencyInterceptor(Builder b) {
    this.policy = b.policy;
    this.keyMinter = b.keyMinter;
  }

  /**
   * An interceptor with the default policy ({@link RetryPolicy#ofDefaults()}) and random keys.
   *
   * @return a new interceptor, with a budget of its own
   */
  public static IdempotencyInterceptor create() {
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
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    String method = request.method();
    OperationKey key = keyOf(request);
    Request keyed =
        key != null
            ? request.newBuilder().header(RetryLoop.KEY_HEADER, key.value()).build()
            : request;
    RetryPolicy callPolicy = oneShot(request) ? policy.toBuilder().maxAttempts(1).build() : policy;
    RetryLoop loop =
        RetryLoop.start(callPolicy, method, RetryLoop.describe(method, request.url().uri()), key);
    while (true) {
      Duration timeout = loop.beginAttempt(null).orElseThrow(loop::deadlinePassed);
      long attemptEnd = System.nanoTime() + timeout.toNanos();
      int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
      Chain attempt =
          chain
              .withConnectTimeout(millis, TimeUnit.MILLISECONDS)
              .withWriteTimeout(millis, TimeUnit.MILLISECONDS)
              .withReadTimeout(millis, TimeUnit.MILLISECONDS)
              .withRetryOnConnectionFailure(false)
              .withDns(deadlineDns(chain));
      Response response = null;
      RetryLoop.Step step;
      LookupDeadline.begin(attemptEnd);
      try {
        Response raw = attempt.proceed(keyed);
        ByteString body = readWithin(raw, attemptEnd);
        response =
            raw.newBuilder().body(ResponseBody.create(body, raw.body().contentType())).build();
        step =
            loop.afterResponse(
                response.code(),
                response.header("Retry-After"),
                RetryLoop.readsProblemBody(response.code(), response.header("Content-Type"))
                    ? body.toByteArray()
                    : null,
                response);
      } catch (IOException | RuntimeException e) {
        if (chain.call().isCanceled()) {
          throw e; // cancelled by the caller or by OkHttp's call timeout: not a lost connection
        }
        step = loop.afterFailure(notProcessed(e));
      } finally {
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
  }

  /**
   * The key of this call: the caller's tag, else the caller's header, else one minted now for POST
   * and PATCH, once per call (this runs once per call, outside the retry loop).
   */
  private @Nullable OperationKey keyOf(Request request) {
    OperationKey tagged = request.tag(OperationKey.class);
    if (tagged != null) {
      return tagged;
    }
    String header = request.header(RetryLoop.KEY_HEADER);
    if (header != null) {
      return OperationKey.of(header);
    }
    if (RetryLoop.mintsKeyFor(request.method())) {
      return Objects.requireNonNull(keyMinter.get(), "the key minter returned null");
    }
    return null;
  }

  /**
   * Whether the server reset the attempt's HTTP/2 stream with {@code REFUSED_STREAM}, which it does
   * only for a stream it did not process (RFC 9113 section 8.7; OkHttp gives the same reset to the
   * streams a {@code GOAWAY} left out). OkHttp's {@code StreamResetException} lives in a package
   * its module does not export to this one, so it is told by its class name and the error code its
   * message names ({@code stream was reset: REFUSED_STREAM}).
   */
  private static boolean refusedStream(Exception e) {
    return e.getClass().getName().equals("okhttp3.internal.http2.StreamResetException")
        && String.valueOf(e.getMessage()).endsWith(": REFUSED_STREAM");
  }

  /**
   * An attempt's failure that left the request unprocessed, as the {@link
   * RequestNotProcessedException} it is (retried for any method); any other as it was.
   */
  private static Exception notProcessed(Exception e) {
    if (refusedStream(e)) {
      return new RequestNotProcessedException(
          "the server refused the HTTP/2 stream (REFUSED_STREAM) before processing the request", e);
    }
    return e;
  }

  private DeadlineDns deadlineDns(Chain chain) {
    DeadlineDns wrapped = DeadlineDns.wrap(chain.getDns(), dns);
    dns = wrapped;
    return wrapped;
  }

  private static boolean oneShot(Request request) {
    RequestBody body = request.body();
    return body != null && body.isOneShot();
  }

  /**
   * Reads the whole body within the attempt, under a deadline at the attempt's end: OkHttp's read
   * timeout restarts with every byte, so a body trickling in would otherwise outlive any deadline.
   * The deadline sits on the body's Okio source, which is the connection's, so it interrupts a read
   * that blocks (an {@link InterruptedIOException}, a read timeout to the allowlist).
   *
   * <p>Any other failure here comes after a complete status line and headers, so it is a body cut
   * off, whatever OkHttp calls it ({@code ProtocolException: unexpected end of stream} for a short
   * {@code Content-Length} body): it is reported as an {@link EOFException}, a connection lost
   * after the request was sent, retried for a keyed or idempotent request.
   */
  private static ByteString readWithin(Response response, long attemptEndNanos) throws IOException {
    try (ResponseBody body = response.body()) {
      BufferedSource source = body.source();
      source.timeout().deadlineNanoTime(attemptEndNanos);
      return source.readByteString();
    } catch (InterruptedIOException timeout) {
      throw timeout;
    } catch (IOException cutOff) {
      EOFException e =
          new EOFException(
              "the response body (HTTP " + response.code() + ") was cut off: " + cutOff);
      e.initCause(cutOff);
      throw e;
    }
  }

  @Override
  public String toString() {
    return "IdempotencyInterceptor[" + policy + "]";
  }

  /** Builds an {@link IdempotencyInterceptor}. Not thread-safe. */
  public static final class Builder {
    private RetryPolicy policy = RetryPolicy.ofDefaults();
    private Supplier<OperationKey> keyMinter = OperationKey::random;

    private Builder() {}

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
    public IdempotencyInterceptor build() {
      return new IdempotencyInterceptor(this);
    }
  }
}
