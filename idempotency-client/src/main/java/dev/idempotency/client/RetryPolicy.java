package dev.idempotency.client;

import dev.idempotency.client.internal.Classifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The retry policy: an immutable, validated configuration shared by every call of a client.
 *
 * <p>The defaults, and why:
 *
 * <ul>
 *   <li>{@code maxAttempts} <b>3</b> in all (one try, two retries), at most {@value
 *       #MAX_ATTEMPTS_LIMIT}: each retry multiplies the load on a struggling server; two retries
 *       ride out a blip without tripling an outage for long (the budget stops that), and the hard
 *       limit catches configuration mistakes.
 *   <li>{@code backoff} <b>full jitter, base 0.5 s, cap 20 s</b>: full jitter spreads a fleet's
 *       retries evenly, the base clears a short blip, the cap bounds larger configurations (with 3
 *       attempts the waits are drawn from [0, 0.5 s] and [0, 1 s]).
 *   <li>{@code deadline} <b>30 s</b> for the whole call, waits included: a common upstream request
 *       timeout, so a call never outlives the request that made it. No attempt starts, and no wait
 *       runs, past it.
 *   <li>{@code attemptTimeout} <b>10 s</b>, clamped to the time left: a stalled first attempt still
 *       leaves time for two more inside the deadline.
 *   <li>{@code retryOn500} <b>false</b>: a 500 is usually a bug that a retry repeats. The server
 *       can mark a 500 retryable in its problem body ({@code "retryable": true}).
 *   <li>{@code idempotentMethods} <b>GET, HEAD, OPTIONS, TRACE</b>: a read timeout, a dropped
 *       connection after the request went out, or a 502/504 (a gateway that forwarded it and lost
 *       the answer) may have left a side effect, so other methods are retried after such failures
 *       only when they carry an idempotency key. Add PUT and DELETE if your API gives them RFC 9110
 *       semantics.
 *   <li>{@code budget} <b>a {@link TokenBucketRetryBudget} per policy</b> (500, 5, 14, 1): shared
 *       by every call of the policy; pass one instance to several policies to share it wider.
 *   <li>{@code environment} <b>{@link RetryEnvironment#system()}</b>: real time, thread-local
 *       randomness, real waits and the {@code dev.idempotency.client} logger; a test replaces them
 *       in one value.
 * </ul>
 *
 * <p>Retry-After: a server's {@code Retry-After} (delta-seconds or HTTP-date) extends the backoff,
 * never shortens it; if it asks for more than the time left, the call stops at once ({@link
 * StopReason#RETRY_AFTER_BEYOND_DEADLINE}) with the last response. Immutable and thread-safe; the
 * budget and listeners it holds are shared, thread-safe objects.
 */
public final class RetryPolicy {
  /** The default number of attempts in all: 3. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;

  /** The most attempts a policy allows: 10. */
  public static final int MAX_ATTEMPTS_LIMIT = 10;

  /** The default overall deadline of a call: 30 s. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  /** The default timeout of one attempt: 10 s (clamped to the time left). */
  public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

  /** The default idempotent methods. */
  public static final Set<String> DEFAULT_IDEMPOTENT_METHODS =
      Set.of("GET", "HEAD", "OPTIONS", "TRACE");

  private final int maxAttempts;
  private final Backoff backoff;
  private final Duration deadline;
  private final Duration attemptTimeout;
  private final boolean retryOn500;
  private final Set<String> idempotentMethods;
  private final RetryBudget budget;
  private final List<RetryListener> listeners;
  private final RetryEnvironment environment;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.backoff = b.backoff;
    this.deadline = b.deadline;
    this.attemptTimeout = b.attemptTimeout;
    this.retryOn500 = b.retryOn500;
    this.idempotentMethods = Collections.unmodifiableSet(new LinkedHashSet<>(b.idempotentMethods));
    this.budget = b.budget != null ? b.budget : TokenBucketRetryBudget.ofDefaults();
    this.listeners = List.copyOf(b.listeners);
    this.environment = b.environment;
  }

  /**
   * The defaults (see the class javadoc), with a fresh budget.
   *
   * @return a policy with the defaults
   */
  public static RetryPolicy ofDefaults() {
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

  /**
   * A builder holding this policy's settings, including the same budget instance (so the two
   * policies share it).
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxAttempts = maxAttempts;
    b.backoff = backoff;
    b.deadline = deadline;
    b.attemptTimeout = attemptTimeout;
    b.retryOn500 = retryOn500;
    b.idempotentMethods = new LinkedHashSet<>(idempotentMethods);
    b.budget = budget;
    b.listeners = new ArrayList<>(listeners);
    b.environment = environment;
    return b;
  }

  /**
   * Classifies a response by the allowlist: 429, 503 and the in-flight 409 ({@code
   * idempotency_request_in_flight}) are retryable for any method (they mean the request was not
   * processed); 502 and 504 only for an idempotent method or a request with an idempotency key (a
   * gateway may have forwarded the request and lost the answer, the same uncertainty as a read
   * timeout); 500 only with {@code retryOn500} or a problem body that says {@code "retryable":
   * true}, and then under the same method-or-key condition as 502 and 504; a problem body that says
   * {@code "retryable": false} is never retried; every other status (401 and 403 included) is not.
   *
   * @param method the request method
   * @param keyed whether the request carries an idempotency key
   * @param status the HTTP status
   * @param problemCode the {@code code} of an {@code application/problem+json} body, or {@code
   *     null}
   * @param problemRetryable the {@code retryable} member of that body, or {@code null}
   * @return the verdict
   */
  public RetryVerdict classify(
      String method,
      boolean keyed,
      int status,
      @Nullable String problemCode,
      @Nullable Boolean problemRetryable) {
    Objects.requireNonNull(method, "method");
    return Classifier.classifyStatus(this, method, keyed, status, problemCode, problemRetryable);
  }

  /**
   * Classifies a failure by the allowlist: connection refused and connect timeouts are retryable
   * (the request was never sent); a read timeout or a connection lost after sending is retryable
   * only for an idempotent method or a request with an idempotency key; everything else (unknown
   * hosts, TLS failures, bugs) is not.
   *
   * @param method the request method
   * @param keyed whether the request carries an idempotency key
   * @param failure what the attempt threw ({@link java.util.concurrent.CompletionException} and
   *     {@link java.util.concurrent.ExecutionException} are unwrapped)
   * @return the verdict
   */
  public RetryVerdict classify(String method, boolean keyed, Throwable failure) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(failure, "failure");
    return Classifier.classifyFailure(this, method, keyed, failure);
  }

  /**
   * Whether {@code method} is treated as idempotent (safe to re-send after a read timeout without a
   * key).
   *
   * @param method an HTTP method, any case
   * @return {@code true} if idempotent
   */
  public boolean isIdempotentMethod(String method) {
    return idempotentMethods.contains(method.toUpperCase(Locale.ROOT));
  }

  /** Returns the number of attempts in all, the first included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Returns the backoff. */
  public Backoff backoff() {
    return backoff;
  }

  /** Returns the overall deadline of a call. */
  public Duration deadline() {
    return deadline;
  }

  /** Returns the timeout of one attempt, before clamping to the time left. */
  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  /** Returns whether a plain 500 is retried. */
  public boolean retryOn500() {
    return retryOn500;
  }

  /** Returns the methods treated as idempotent, upper case. */
  public Set<String> idempotentMethods() {
    return idempotentMethods;
  }

  /** Returns the budget every call of this policy pays its retries from. */
  public RetryBudget budget() {
    return budget;
  }

  /** Returns the listeners. */
  public List<RetryListener> listeners() {
    return listeners;
  }

  /** Returns the time, randomness, waiting and logging every call of this policy runs with. */
  public RetryEnvironment environment() {
    return environment;
  }

  @Override
  public String toString() {
    return "RetryPolicy[maxAttempts="
        + maxAttempts
        + ", "
        + backoff
        + ", deadline="
        + deadline
        + ", attemptTimeout="
        + attemptTimeout
        + ", retryOn500="
        + retryOn500
        + ", idempotentMethods="
        + idempotentMethods
        + ", budget="
        + budget
        + "]";
  }

  /**
   * Builds a {@link RetryPolicy}. Every setter validates at once and names the setting in its
   * message, such as {@code "maxAttempts must be between 1 and 10, but was 0"}. Not thread-safe.
   */
  public static final class Builder {
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Backoff backoff = Backoff.fullJitter();
    private Duration deadline = DEFAULT_DEADLINE;
    private Duration attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;
    private boolean retryOn500;
    private Set<String> idempotentMethods = new LinkedHashSet<>(DEFAULT_IDEMPOTENT_METHODS);
    private @Nullable RetryBudget budget;
    private List<RetryListener> listeners = new ArrayList<>();
    private RetryEnvironment environment = RetryEnvironment.system();

    private Builder() {}

    /**
     * Sets the number of attempts in all, the first one included.
     *
     * @param maxAttempts 1 (no retries) to {@value RetryPolicy#MAX_ATTEMPTS_LIMIT}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
        throw new IllegalArgumentException(
            "maxAttempts must be between 1 and " + MAX_ATTEMPTS_LIMIT + ", but was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Sets the backoff ({@link Backoff#fullJitter(Duration, Duration)} or {@link
     * Backoff#decorrelatedJitter(Duration, Duration)}).
     *
     * @param backoff the backoff
     * @return this builder
     */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /**
     * Sets the overall deadline of a call, waits included.
     *
     * @param deadline {@code > 0}
     * @return this builder
     * @throws IllegalArgumentException if zero or negative
     */
    public Builder deadline(Duration deadline) {
      this.deadline = positive("deadline", deadline);
      return this;
    }

    /**
     * Sets the timeout of one attempt; each attempt gets {@code min(attemptTimeout, time left)}.
     *
     * @param attemptTimeout {@code > 0}
     * @return this builder
     * @throws IllegalArgumentException if zero or negative
     */
    public Builder attemptTimeout(Duration attemptTimeout) {
      this.attemptTimeout = positive("attemptTimeout", attemptTimeout);
      return this;
    }

    /**
     * Retries a plain 500 (off by default: a 500 is usually a bug a retry repeats).
     *
     * @param retryOn500 whether to retry 500
     * @return this builder
     */
    public Builder retryOn500(boolean retryOn500) {
      this.retryOn500 = retryOn500;
      return this;
    }

    /**
     * Sets the methods that may be re-sent after a read timeout or a connection lost after sending,
     * without an idempotency key. The default is GET, HEAD, OPTIONS, TRACE.
     *
     * @param methods HTTP methods, any case
     * @return this builder
     * @throws IllegalArgumentException if a method is blank or POST or PATCH (never idempotent by
     *     definition)
     */
    public Builder idempotentMethods(String... methods) {
      Set<String> set = new LinkedHashSet<>();
      for (String m : methods) {
        Objects.requireNonNull(m, "methods[]");
        String upper = m.trim().toUpperCase(Locale.ROOT);
        if (upper.isEmpty() || upper.equals("POST") || upper.equals("PATCH")) {
          throw new IllegalArgumentException(
              "idempotentMethods must not contain blank, POST or PATCH, but had '" + m + "'");
        }
        set.add(upper);
      }
      this.idempotentMethods = set;
      return this;
    }

    /**
     * Sets the retry budget. Pass one instance to several policies to share it.
     *
     * @param budget the budget; {@link RetryBudget#unlimited()} removes the storm protection
     * @return this builder
     */
    public Builder budget(RetryBudget budget) {
      this.budget = Objects.requireNonNull(budget, "budget");
      return this;
    }

    /**
     * Adds a listener.
     *
     * @param listener receives every retry event
     * @return this builder
     */
    public Builder listener(RetryListener listener) {
      this.listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Sets the time, randomness, waiting and logging the policy runs with (default {@link
     * RetryEnvironment#system()}); a test passes fakes here to run a whole schedule without
     * waiting.
     *
     * @param environment the environment
     * @return this builder
     */
    public Builder environment(RetryEnvironment environment) {
      this.environment = Objects.requireNonNull(environment, "environment");
      return this;
    }

    /**
     * Builds the policy; without {@link #budget(RetryBudget)}, with a fresh default budget.
     *
     * @return the policy
     */
    public RetryPolicy build() {
      return new RetryPolicy(this);
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(name + " must be > 0, but was " + d);
      }
      return d;
    }
  }
}
