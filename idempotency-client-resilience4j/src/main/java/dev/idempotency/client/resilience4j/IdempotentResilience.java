package dev.idempotency.client.resilience4j;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryLoop;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.resilience4j.internal.LoopRetryConfig;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.retry.Retry;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The recommended resilience stack for HTTP calls, built in one call, with the idempotency key
 * minted once outside the retry: <b>Retry → CircuitBreaker → RateLimiter → Bulkhead</b> → the
 * attempt, outermost first.
 *
 * <pre>{@code
 * IdempotentResilience<HttpResponse<?>> stack = IdempotentResilience.stack(
 *     RetryPolicy.ofDefaults(), ResponseReader.ofJdk(),
 *     CircuitBreaker.ofDefaults("orders"), RateLimiter.ofDefaults("orders"), Bulkhead.ofDefaults("orders"));
 * HttpResponse<?> response = stack.call("POST", uri, OperationKey.forEvent("order-confirm", "4711"),
 *     (key, timeout) -> http.send(HttpRequest.newBuilder(uri).timeout(timeout)
 *         .header("Idempotency-Key", key.value()).POST(ofString(json)).build(), ofString()));
 * }</pre>
 *
 * <p><b>Why this order.</b> Retry is outermost so that every attempt passes the breaker, the
 * limiter and the bulkhead afresh, and the one deadline covers them all. The breaker is inside the
 * retry so that it counts attempts, and its rejection of an attempt while open ({@code
 * CallNotPermittedException}, unchecked) is not an I/O failure: it propagates at once instead of
 * being retried against an open breaker. The rate limiter is inside the breaker so that calls the
 * breaker rejects spend no permits, and the bulkhead is innermost so that it holds a slot only
 * while a request is on the wire, not during a wait between attempts. Retry inside the breaker
 * would count one call's three failures as three; a time limiter outside the retry would cut the
 * retries off (Resilience4j #331, #1077).
 *
 * <p><b>The retry is the client module's.</b> Each call gets a Resilience4j {@code Retry} whose
 * predicates and interval function ask the call's {@link RetryLoop}: the allowlist, full jitter
 * extended by {@code Retry-After}, the attempt bound, the deadline, the budget shared by every call
 * of this stack (of its policy), the log line and the events. It is built per call because the
 * deadline and the key belong to the call, and a {@code RetryConfig}'s functions see no call. The
 * waits are Resilience4j's ({@code Thread.sleep}), not the policy's {@code Sleeper}.
 *
 * <p><b>Stops</b>, as {@link dev.idempotency.client.http.RetryingHttpClient} has them: a final
 * response is returned; a retryable response or failure that runs out of attempts, time or budget
 * throws {@link RetriesExhaustedException}, with the last response or the failure; what is not an
 * I/O failure (an open breaker, a full bulkhead, a refused rate-limit permit, a bug) propagates
 * unchanged. The breaker records what its configuration says: by default exceptions only, so
 * configure {@code recordResult} to count a 5xx response as a failure.
 *
 * <p>Thread-safe: one instance serves every call; the breaker, limiter, bulkhead and budget are
 * shared by them all.
 *
 * @param <R> the response type
 */
public final class IdempotentResilience<R> {
  private final RetryPolicy policy;
  private final ResponseReader<R> reader;
  private final CircuitBreaker circuitBreaker;
  private final RateLimiter rateLimiter;
  private final Bulkhead bulkhead;
  private final Supplier<OperationKey> keyMinter;

  private IdempotentResilience(
      RetryPolicy policy,
      ResponseReader<R> reader,
      CircuitBreaker circuitBreaker,
      RateLimiter rateLimiter,
      Bulkhead bulkhead,
      Supplier<OperationKey> keyMinter) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.circuitBreaker = Objects.requireNonNull(circuitBreaker, "circuitBreaker");
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
    this.bulkhead = Objects.requireNonNull(bulkhead, "bulkhead");
    this.keyMinter = Objects.requireNonNull(keyMinter, "keyMinter");
  }

  /**
   * The stack Retry (by {@code policy}) → {@code circuitBreaker} → {@code rateLimiter} → {@code
   * bulkhead}; POST and PATCH without a key get a random one.
   *
   * @param policy the retry policy; its budget is shared by every call of the stack
   * @param reader reads status, headers and body of a response
   * @param circuitBreaker the breaker every attempt passes
   * @param rateLimiter the limiter every attempt passes
   * @param bulkhead the bulkhead every attempt passes
   * @param <R> the response type
   * @return the stack
   */
  public static <R> IdempotentResilience<R> stack(
      RetryPolicy policy,
      ResponseReader<R> reader,
      CircuitBreaker circuitBreaker,
      RateLimiter rateLimiter,
      Bulkhead bulkhead) {
    return new IdempotentResilience<>(
        policy, reader, circuitBreaker, rateLimiter, bulkhead, OperationKey::random);
  }

  /**
   * The same stack with another key minter.
   *
   * @param keyMinter called once per call of a POST or PATCH without a key, before its first
   *     attempt, never per attempt
   * @return a new stack sharing this one's policy, breaker, limiter and bulkhead
   */
  public IdempotentResilience<R> withKeyMinter(Supplier<OperationKey> keyMinter) {
    return new IdempotentResilience<>(
        policy, reader, circuitBreaker, rateLimiter, bulkhead, keyMinter);
  }

  /** One attempt of a call: send the request with this key and this timeout. */
  @FunctionalInterface
  public interface Attempt<R> {
    /**
     * Sends the request once.
     *
     * @param key the call's key, the same on every attempt, or {@code null} for a call without one
     *     (send it as the {@code Idempotency-Key} header)
     * @param timeout {@code min(attemptTimeout, time left)}: the attempt's whole exchange, body
     *     included, must end within it
     * @return the response, its body read
     * @throws Exception what the HTTP client throws
     */
    R send(@Nullable OperationKey key, Duration timeout) throws Exception;
  }

  /**
   * Runs one logical call through the stack.
   *
   * @param method the request method (POST and PATCH get a key if {@code key} is null)
   * @param uri the request address, for logs and events
   * @param key the caller's key, or {@code null}
   * @param attempt sends one attempt
   * @return the final response
   * @throws RetriesExhaustedException if attempts, time or budget ran out, or an {@link
   *     IOException} the allowlist does not retry ended the call (its reason says which; the
   *     exception is its cause)
   * @throws Exception anything else the attempt threw, unchanged
   */
  public R call(String method, URI uri, @Nullable OperationKey key, Attempt<R> attempt)
      throws Exception {
    OperationKey callKey =
        key != null
            ? key
            : RetryLoop.mintsKeyFor(method)
                ? Objects.requireNonNull(keyMinter.get(), "the key minter returned null")
                : null;
    RetryLoop loop = RetryLoop.start(policy, method, RetryLoop.describe(method, uri), callKey);
    LoopRetryConfig<R> decisions = new LoopRetryConfig<>(loop, reader);
    Retry retry =
        Retry.of(circuitBreaker.getName() + "-retry", decisions.config(policy.maxAttempts()));
    CheckedSupplier<R> once =
        () -> attempt.send(callKey, loop.beginAttempt(null).orElseThrow(loop::deadlinePassed));
    CheckedSupplier<R> decorated =
        Retry.decorateCheckedSupplier(
            retry,
            CircuitBreaker.decorateCheckedSupplier(
                circuitBreaker,
                RateLimiter.decorateCheckedSupplier(
                    rateLimiter, Bulkhead.decorateCheckedSupplier(bulkhead, once))));
    R response;
    try {
      response = decorated.get();
    } catch (Throwable failure) {
      RetryLoop.Step last = decisions.last();
      if (last != null && last.action() == RetryLoop.Step.Action.STOP) {
        throw last.exception();
      }
      throw rethrowable(failure);
    }
    RetryLoop.Step last = decisions.last();
    if (last != null && last.action() == RetryLoop.Step.Action.STOP) {
      throw last.exception();
    }
    return response;
  }

  private static Exception rethrowable(Throwable failure) {
    if (failure instanceof Error error) {
      throw error;
    }
    return failure instanceof Exception e ? e : new IOException(failure);
  }

  @Override
  public String toString() {
    return "IdempotentResilience[Retry("
        + policy
        + ") → "
        + circuitBreaker.getName()
        + " → "
        + rateLimiter.getName()
        + " → "
        + bulkhead.getName()
        + "]";
  }
}
