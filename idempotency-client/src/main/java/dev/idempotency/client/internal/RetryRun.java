package dev.idempotency.client.internal;

import dev.idempotency.client.Deadline;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryKind;
import dev.idempotency.client.RetryListener;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.RetryVerdict;
import dev.idempotency.client.StopReason;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The state of one logical call: attempts made, the deadline, the previous wait. The transport
 * drives it: before each attempt {@link #beginAttempt(Duration)}, after it {@link #onResponse} or
 * {@link #onFailure}, which answer return, retry after a wait, stop with an exception, or propagate
 * a bug. Transport-neutral, so the blocking and the asynchronous loops, and the fleet simulation,
 * share every decision.
 *
 * <p>Order of the checks after a retryable failure (each one a distinct {@link StopReason}):
 * attempts left, then a {@code Retry-After} beyond the time left, then the wait (backoff extended
 * by {@code Retry-After}) against the time left, and the budget last, so that no token is spent on
 * a retry that would not run. Not thread-safe; one call drives it from one thread at a time (the
 * asynchronous loop hands it over through future completion).
 */
public final class RetryRun {
  /** What the transport does next. */
  public enum Action {
    RETURN,
    RETRY,
    STOP,
    PROPAGATE
  }

  /** The decision after one attempt. */
  public static final class Decision {
    private final Action action;
    private final Duration delay;

    /** Set for STOP only. */
    private final @Nullable RetriesExhaustedException exception;

    /** Set for PROPAGATE only. */
    private final @Nullable Throwable bug;

    private Decision(
        Action action,
        Duration delay,
        @Nullable RetriesExhaustedException exception,
        @Nullable Throwable bug) {
      this.action = action;
      this.delay = delay;
      this.exception = exception;
      this.bug = bug;
    }

    public Action action() {
      return action;
    }

    /** Returns the wait before the next attempt (RETRY). */
    public Duration delay() {
      return delay;
    }

    /** Returns the exception to throw (STOP). */
    public RetriesExhaustedException exception() {
      return Objects.requireNonNull(
          exception, "only a STOP decision carries an exception, and this is " + action);
    }

    /** Returns the unchecked failure to rethrow unchanged (PROPAGATE). */
    public Throwable bug() {
      return Objects.requireNonNull(
          bug, "only a PROPAGATE decision carries a failure, and this is " + action);
    }
  }

  private static final Decision RETURN = new Decision(Action.RETURN, Duration.ZERO, null, null);

  private final RetryPolicy policy;
  private final System.Logger logger;
  private final String method;
  private final String operation;
  private final Optional<OperationKey> key;
  private final Deadline deadline;
  private final long startNanos;
  private int attempts;
  private Duration previousDelay = Duration.ZERO;
  private @Nullable Object lastResponse;
  private @Nullable Throwable lastFailure;
  private String lastCause = "none";

  /**
   * Starts the state of one call.
   *
   * @param key the call's idempotency key, or {@code null} for a call without one
   * @param deadline the call's deadline, or {@code null} for the policy's deadline starting now
   */
  public RetryRun(
      RetryPolicy policy,
      String method,
      String operation,
      @Nullable OperationKey key,
      @Nullable Deadline deadline) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.logger = policy.environment().logger();
    this.method = Objects.requireNonNull(method, "method");
    this.operation = Objects.requireNonNull(operation, "operation");
    this.key = Optional.ofNullable(key);
    this.deadline =
        deadline != null
            ? deadline
            : Deadline.after(policy.deadline(), policy.environment().ticker());
    this.startNanos = this.deadline.ticker().nanoTime();
  }

  /**
   * Starts an attempt.
   *
   * @param requestTimeout a timeout the request itself carries, or {@code null}
   * @return the attempt's timeout, {@code min(attemptTimeout, requestTimeout, time left)}, or empty
   *     when the deadline has passed (then throw {@link #deadlinePassed()})
   */
  public Optional<Duration> beginAttempt(@Nullable Duration requestTimeout) {
    long left = deadline.remainingNanos();
    if (left <= 0) {
      return Optional.empty();
    }
    long timeout = Math.min(left, nanos(policy.attemptTimeout()));
    if (requestTimeout != null && !requestTimeout.isNegative() && !requestTimeout.isZero()) {
      timeout = Math.min(timeout, nanos(requestTimeout));
    }
    attempts++;
    return Optional.of(Duration.ofNanos(timeout));
  }

  /** Returns the exception for a deadline that passed before the next attempt could start. */
  public RetriesExhaustedException deadlinePassed() {
    return stop(
            StopReason.DEADLINE,
            "the deadline of "
                + seconds(deadline.budget())
                + " passed before attempt "
                + (attempts + 1))
        .exception();
  }

  /**
   * Decides after an attempt that produced a response.
   *
   * @param retryAfter the {@code Retry-After} header, or {@code null}
   * @param problem the problem body's {@code code} and {@code retryable}
   * @param response the response, kept as the last response
   */
  public Decision onResponse(
      int status, @Nullable String retryAfter, ProblemDetails problem, Object response) {
    lastResponse = response;
    lastFailure = null;
    RetryVerdict verdict =
        Classifier.classifyStatus(
            policy, method, key.isPresent(), status, problem.code(), problem.retryable());
    if (!verdict.isRetryable()) {
      succeeded(status, problem.code());
      return RETURN;
    }
    lastCause = Classifier.describeStatus(status, problem.code());
    return afterRetryable(
        verdict, RetryAfter.parse(retryAfter, policy.environment().clock().instant()));
  }

  /**
   * Decides after an attempt that threw. An I/O failure once the deadline has passed (the attempt's
   * timeout was the time left, and it ran out) stops the call with {@link StopReason#DEADLINE},
   * whatever the classification.
   */
  public Decision onFailure(Throwable failure) {
    Throwable t = Classifier.unwrap(failure);
    if (!(t instanceof IOException)) {
      return new Decision(Action.PROPAGATE, Duration.ZERO, null, t);
    }
    lastResponse = null;
    lastFailure = t;
    lastCause = Classifier.describe(t);
    if (deadline.remainingNanos() <= 0) {
      return stop(
          StopReason.DEADLINE,
          "the deadline of "
              + seconds(deadline.budget())
              + " passed during attempt "
              + attempts
              + "; "
              + Classifier.whetherSent(t));
    }
    RetryVerdict verdict = Classifier.classifyFailure(policy, method, key.isPresent(), t);
    if (!verdict.isRetryable()) {
      return stop(StopReason.NOT_RETRYABLE, verdict.reason());
    }
    return afterRetryable(verdict, Optional.empty());
  }

  /**
   * Decides after the caller's own body handler or subscriber failed: a bug (or an error of its own
   * making, such as a file it cannot write) that a retry would repeat, so it propagates unchanged
   * and the request is not sent again.
   *
   * @param failure what the caller's code threw, or failed its body with
   */
  public Decision onCallerFailure(Throwable failure) {
    return new Decision(
        Action.PROPAGATE, Duration.ZERO, null, Objects.requireNonNull(failure, "failure"));
  }

  private Decision afterRetryable(RetryVerdict verdict, Optional<Duration> retryAfter) {
    if (attempts >= policy.maxAttempts()) {
      return stop(
          StopReason.ATTEMPTS, "all " + policy.maxAttempts() + " attempts (maxAttempts) ran");
    }
    long left = deadline.remainingNanos();
    if (retryAfter.isPresent() && nanos(retryAfter.get()) >= left) {
      return stop(
          StopReason.RETRY_AFTER_BEYOND_DEADLINE,
          "the server asked to retry after "
              + seconds(retryAfter.get())
              + ", but only "
              + seconds(Duration.ofNanos(left))
              + " is left before the deadline");
    }
    Duration backoff =
        policy.backoff().delay(attempts - 1, previousDelay, policy.environment().random());
    Duration delay =
        retryAfter.isPresent() && retryAfter.get().compareTo(backoff) > 0
            ? retryAfter.get()
            : backoff;
    if (nanos(delay) >= left) {
      return stop(
          StopReason.DEADLINE,
          "the next wait of "
              + seconds(delay)
              + " would end at or past the deadline ("
              + seconds(Duration.ofNanos(left))
              + " left)");
    }
    RetryKind kind = verdict.kind().orElseThrow();
    if (!policy.budget().tryAcquire(kind)) {
      return stop(
          StopReason.BUDGET,
          "will not be retried to protect the caller and the server: the retry budget is"
              + " empty ("
              + policy.budget().available()
              + " tokens left, a "
              + kind
              + " retry costs more)");
    }
    previousDelay = backoff;
    Duration timeLeft = Duration.ofNanos(left);
    if (logger.isLoggable(Level.INFO)) {
      logger.log(
          Level.INFO,
          "retrying "
              + operation
              + key.map(k -> " [Idempotency-Key " + k + "]").orElse("")
              + ": attempt "
              + attempts
              + " of "
              + policy.maxAttempts()
              + " failed with "
              + lastCause
              + "; next attempt in "
              + millis(delay)
              + " ms"
              + retryAfter.map(r -> " (Retry-After " + seconds(r) + ")").orElse("")
              + ", "
              + millis(timeLeft)
              + " ms left before the deadline");
    }
    publish(
        new RetryEvent.RetryScheduled(operation, key, attempts, lastCause, kind, delay, timeLeft));
    return new Decision(Action.RETRY, delay, null, null);
  }

  /**
   * A final response: refund the budget; only a success after retries builds a message (the hot
   * path does not).
   */
  private void succeeded(int status, @Nullable String problemCode) {
    policy.budget().onSuccess();
    if (attempts > 1) {
      lastCause = Classifier.describeStatus(status, problemCode);
      if (logger.isLoggable(Level.DEBUG)) {
        logger.log(
            Level.DEBUG, operation + " answered " + lastCause + " after " + attempts + " attempts");
      }
      publish(new RetryEvent.SucceededAfterRetries(operation, key, attempts, elapsed()));
    }
  }

  private Decision stop(StopReason reason, String why) {
    Duration elapsed = elapsed();
    String message =
        operation
            + key.map(k -> " [Idempotency-Key " + k + "]").orElse("")
            + " stopped after "
            + attempts
            + (attempts == 1 ? " attempt" : " attempts")
            + " in "
            + seconds(elapsed)
            + " ("
            + reason
            + "): "
            + why
            + "; last outcome: "
            + lastCause;
    Level level = reason == StopReason.NOT_RETRYABLE && attempts <= 1 ? Level.DEBUG : Level.WARNING;
    if (logger.isLoggable(level)) {
      logger.log(level, message);
    }
    publish(new RetryEvent.GaveUp(operation, key, attempts, elapsed, reason, lastCause));
    return new Decision(
        Action.STOP,
        Duration.ZERO,
        new RetriesExhaustedException(
            message, reason, attempts, elapsed, lastResponse, lastFailure),
        null);
  }

  private void publish(RetryEvent event) {
    for (RetryListener listener : policy.listeners()) {
      try {
        listener.onEvent(event);
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "retry listener " + listener + " failed on " + event, e);
      }
    }
  }

  /** Returns the number of attempts started so far. */
  public int attempts() {
    return attempts;
  }

  /** Returns the time since the call started. */
  public Duration elapsed() {
    return Duration.ofNanos(Math.max(0, deadline.ticker().nanoTime() - startNanos));
  }

  /** Returns the call's deadline. */
  public Deadline deadline() {
    return deadline;
  }

  private static long nanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static long millis(Duration d) {
    return nanos(d) / 1_000_000L;
  }

  private static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.3f s", nanos(d) / 1e9);
  }
}
