package dev.idempotency.client;

import dev.idempotency.client.internal.ProblemDetails;
import dev.idempotency.client.internal.RetryRun;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The retry loop of one logical call, for an adapter of an HTTP client other than {@code
 * java.net.http} (an OkHttp interceptor, an Apache HttpClient exec-chain handler, a Resilience4j
 * decorator). Every decision is the one {@link dev.idempotency.client.http.RetryingHttpClient}
 * makes: the allowlist, the wait (backoff extended by {@code Retry-After}), the attempt bound, the
 * one deadline, the shared budget, the log line and the {@link RetryEvent}s. The adapter only moves
 * bytes:
 *
 * <pre>{@code
 * RetryLoop loop = RetryLoop.start(policy, "POST", RetryLoop.describe("POST", uri), key);
 * while (true) {
 *   Duration timeout = loop.beginAttempt(null).orElseThrow(loop::deadlinePassed);
 *   RetryLoop.Step step;
 *   try {
 *     Response r = send(request with key, timeout);        // the whole exchange, body included
 *     step = loop.afterResponse(r.status(), r.header("Retry-After"), problemBytesIfAny, r);
 *   } catch (IOException | RuntimeException e) {
 *     step = loop.afterFailure(e);
 *   }
 *   switch (step.action()) { RETURN: return r; RETRY: loop.waitBefore(step); STOP: throw
 *   step.exception(); PROPAGATE: throw step.propagated(); }
 * }
 * }</pre>
 *
 * <p>The key is fixed when the loop starts, before the first attempt, and never changes: the loop
 * has no way to mint another. Not thread-safe: one call drives its loop from one thread at a time.
 */
public final class RetryLoop {
  /** The request header that carries the key. */
  public static final String KEY_HEADER = "Idempotency-Key";

  /**
   * The methods that get a key minted when the caller gave none: POST and PATCH, the two methods
   * that are not idempotent by definition.
   */
  public static final Set<String> AUTO_KEY_METHODS = Set.of("POST", "PATCH");

  private final RetryRun run;
  private final @Nullable OperationKey key;
  private final Sleeper sleeper;

  private RetryLoop(RetryRun run, @Nullable OperationKey key, Sleeper sleeper) {
    this.run = run;
    this.key = key;
    this.sleeper = sleeper;
  }

  /**
   * Starts the loop of one logical call; its deadline, {@link RetryPolicy#deadline()}, starts now.
   *
   * @param policy the policy (shared by every call of a client, with its budget)
   * @param method the request method
   * @param operation how the logs and events name the call, typically {@link #describe(String,
   *     URI)}
   * @param key the call's key, minted once before this, or {@code null} for a call without one
   * @return the loop, before its first attempt
   */
  public static RetryLoop start(
      RetryPolicy policy, String method, String operation, @Nullable OperationKey key) {
    return new RetryLoop(
        new RetryRun(policy, method, operation, key, null), key, policy.environment().sleeper());
  }

  /**
   * Whether a call of {@code method} without a key of its own gets one minted: POST and PATCH.
   *
   * @param method an HTTP method, any case
   * @return {@code true} for POST and PATCH
   */
  public static boolean mintsKeyFor(String method) {
    return AUTO_KEY_METHODS.contains(method.toUpperCase(Locale.ROOT));
  }

  /**
   * How logs and events name a call: the method, then the address without its user info, query or
   * fragment (operations are logged, and those can carry secrets).
   *
   * @param method the request method
   * @param uri the request address
   * @return for example {@code POST https://api.example.com:8443/orders/4711/confirm}
   */
  public static String describe(String method, URI uri) {
    String port = uri.getPort() >= 0 ? ":" + uri.getPort() : "";
    return method
        + " "
        + uri.getScheme()
        + "://"
        + uri.getHost()
        + port
        + (uri.getRawPath() == null ? "" : uri.getRawPath());
  }

  /**
   * Whether the body of a response may carry the problem members the allowlist reads ({@code code},
   * {@code retryable}): a 409, 429, 500, 502, 503 or 504 with a JSON content type. Only then does
   * an adapter need to read the body before {@link #afterResponse}.
   *
   * @param status the HTTP status
   * @param contentType the {@code Content-Type} header, or {@code null}
   * @return whether to pass the body's bytes to {@link #afterResponse}
   */
  public static boolean readsProblemBody(int status, @Nullable String contentType) {
    boolean relevant =
        status == 409
            || status == 429
            || status == 500
            || status == 502
            || status == 503
            || status == 504;
    return relevant && contentType != null && contentType.toLowerCase(Locale.ROOT).contains("json");
  }

  /**
   * Starts an attempt, if the deadline allows one.
   *
   * @param requestTimeout a timeout the request itself carries, or {@code null}
   * @return the attempt's timeout, {@code min(attemptTimeout, requestTimeout, time left)}, to apply
   *     to the whole exchange (the response body included); empty when the deadline has passed, and
   *     then the adapter throws {@link #deadlinePassed()}
   */
  public Optional<Duration> beginAttempt(@Nullable Duration requestTimeout) {
    return run.beginAttempt(requestTimeout);
  }

  /**
   * The exception for a deadline that passed before the next attempt could start.
   *
   * @return a {@link RetriesExhaustedException} with {@link StopReason#DEADLINE}
   */
  public RetriesExhaustedException deadlinePassed() {
    return run.deadlinePassed();
  }

  /**
   * Decides after an attempt that produced a response.
   *
   * @param status the HTTP status
   * @param retryAfter the {@code Retry-After} header, or {@code null}
   * @param problemBody the body's bytes when {@link #readsProblemBody} said so, else {@code null}
   * @param response the response, kept as {@link RetriesExhaustedException#lastResponse()} if the
   *     call stops
   * @return what to do next
   */
  public Step afterResponse(
      int status, @Nullable String retryAfter, byte @Nullable [] problemBody, Object response) {
    return new Step(
        run.onResponse(
            status,
            retryAfter,
            ProblemDetails.parse(problemBody),
            Objects.requireNonNull(response, "response")));
  }

  /**
   * Decides after an attempt that threw. An unchecked exception or an error is a bug (or an open
   * circuit breaker's rejection) and propagates unchanged; an {@link java.io.IOException} is
   * classified by the allowlist; any I/O failure once the deadline has passed stops the call.
   *
   * @param failure what the attempt threw
   * @return what to do next
   */
  public Step afterFailure(Throwable failure) {
    return new Step(run.onFailure(Objects.requireNonNull(failure, "failure")));
  }

  /**
   * Waits before the next attempt, through the policy's {@link Sleeper}, blocking the thread.
   *
   * @param step a {@link Step.Action#RETRY} step
   * @throws InterruptedIOException if the thread is interrupted while it waits (its interrupt flag
   *     set again): an {@link java.io.IOException}, as HTTP clients report an interrupted call
   */
  public void waitBefore(Step step) throws InterruptedIOException {
    try {
      sleeper.sleep(step.delay());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted =
          new InterruptedIOException("interrupted while waiting " + step.delay() + " to retry");
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  /** Returns the number of attempts started so far. */
  public int attempts() {
    return run.attempts();
  }

  /** Returns the call's deadline. */
  public Deadline deadline() {
    return run.deadline();
  }

  /** Returns the call's key, the same on every attempt, or empty for a call without one. */
  public Optional<OperationKey> key() {
    return Optional.ofNullable(key);
  }

  /** What the adapter does after an attempt. */
  public static final class Step {
    /** The four outcomes of an attempt. */
    public enum Action {
      /** Return the response to the caller: a final answer, or a failure the allowlist rejects. */
      RETURN,
      /** Close the response if any, wait {@link Step#delay()}, then start the next attempt. */
      RETRY,
      /** Throw {@link Step#exception()}: attempts, deadline or budget ran out. */
      STOP,
      /** Rethrow {@link Step#failure()} unchanged: it is not an I/O failure. */
      PROPAGATE
    }

    private final RetryRun.Decision decision;

    private Step(RetryRun.Decision decision) {
      this.decision = decision;
    }

    /** Returns what to do. */
    public Action action() {
      return switch (decision.action()) {
        case RETURN -> Action.RETURN;
        case RETRY -> Action.RETRY;
        case STOP -> Action.STOP;
        case PROPAGATE -> Action.PROPAGATE;
      };
    }

    /** Returns the wait before the next attempt ({@link Action#RETRY}), else zero. */
    public Duration delay() {
      return decision.delay();
    }

    /**
     * Returns the exception to throw ({@link Action#STOP} only).
     *
     * @throws NullPointerException for another action
     */
    public RetriesExhaustedException exception() {
      return decision.exception();
    }

    /**
     * Returns the failure to rethrow unchanged ({@link Action#PROPAGATE} only).
     *
     * @throws NullPointerException for another action
     */
    public Throwable failure() {
      return decision.bug();
    }

    /**
     * For {@code throw step.propagated();} in an adapter: throws the failure if it is an {@link
     * Error}, returns it otherwise ({@link Action#PROPAGATE} only).
     *
     * @return the unchecked exception to throw
     * @throws Error the failure, if it is one
     * @throws IllegalStateException if the failure is a checked exception (never, by construction)
     */
    public RuntimeException propagated() {
      Throwable failure = failure();
      if (failure instanceof Error error) {
        throw error;
      }
      if (failure instanceof RuntimeException unchecked) {
        return unchecked;
      }
      return new IllegalStateException("a checked failure cannot propagate unchanged", failure);
    }

    @Override
    public String toString() {
      return "Step[" + decision.action() + ", delay=" + decision.delay() + "]";
    }
  }
}
