package dev.idempotency.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.client.Backoff;
import dev.idempotency.client.FakeTime;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryBudget;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.client.TokenBucketRetryBudget;
import dev.idempotency.testing.RecordingLogger;
import java.lang.System.Logger.Level;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The per-call decisions with a fake clock and fixed draws: schedules, deadline arithmetic, budget,
 * stop reasons.
 */
class RetryRunTest {
  private final FakeTime time = new FakeTime();
  private final RecordingLogger logger = new RecordingLogger();
  private final List<RetryEvent> events = new CopyOnWriteArrayList<>();

  /** Fake time, every jitter draw 0.5, and the recording logger. */
  private RetryEnvironment environment() {
    return time.environment().withRandom(() -> 0.5).withLogger(logger);
  }

  private RetryPolicy.Builder policy() {
    return RetryPolicy.builder().environment(environment()).listener(events::add);
  }

  private RetryRun run(RetryPolicy p, String method, OperationKey key) {
    return new RetryRun(p, method, method + " http://127.0.0.1/x", key, null);
  }

  private static ProblemDetails none() {
    return ProblemDetails.NONE;
  }

  /**
   * Three 503s with the defaults and draws of 0.5: waits 0.25 s and 0.5 s, then ATTEMPTS with the
   * last response.
   */
  @Test
  void theDefaultScheduleEndsAfterThreeAttempts() {
    RetryPolicy p = policy().build();
    RetryRun run = run(p, "GET", null);

    assertThat(run.beginAttempt(null)).contains(Duration.ofSeconds(10));
    RetryRun.Decision s1 = run.onResponse(503, null, none(), "r1");
    assertThat(s1.action()).isEqualTo(RetryRun.Action.RETRY);
    assertThat(s1.delay()).isEqualTo(Duration.ofMillis(250));
    time.sleep(s1.delay());

    assertThat(run.beginAttempt(null)).contains(Duration.ofSeconds(10));
    RetryRun.Decision s2 = run.onResponse(503, null, none(), "r2");
    assertThat(s2.delay()).isEqualTo(Duration.ofMillis(500));
    time.sleep(s2.delay());

    assertThat(run.beginAttempt(null)).isPresent();
    RetryRun.Decision s3 = run.onResponse(503, null, none(), "r3");
    assertThat(s3.action()).isEqualTo(RetryRun.Action.STOP);
    RetriesExhaustedException e = s3.exception();
    assertThat(e.reason()).isEqualTo(StopReason.ATTEMPTS);
    assertThat(e.attempts()).isEqualTo(3);
    assertThat(e.elapsed()).isEqualTo(Duration.ofMillis(750));
    assertThat(e.lastResponse()).contains("r3");
    assertThat(e.getMessage())
        .contains("GET http://127.0.0.1/x stopped after 3 attempts in 0.750 s (ATTEMPTS)")
        .contains("last outcome: HTTP 503");
    assertThat(p.budget().available()).isEqualTo(500 - 2 * 14);
  }

  /**
   * Each attempt's timeout is min(attemptTimeout, time left); a stalled attempt eats the deadline.
   */
  @Test
  void attemptTimeoutIsClampedToTheTimeLeft() {
    RetryPolicy p = policy().deadline(Duration.ofSeconds(12)).build();
    RetryRun run = run(p, "GET", null);
    assertThat(run.beginAttempt(null)).contains(Duration.ofSeconds(10));
    time.advance(Duration.ofSeconds(10)); // the attempt stalled until its timeout
    RetryRun.Decision s = run.onFailure(new HttpTimeoutException("request timed out"));
    assertThat(s.delay()).isEqualTo(Duration.ofMillis(250));
    time.sleep(s.delay());
    assertThat(run.beginAttempt(null)).contains(Duration.ofMillis(1750));
    assertThat(run.beginAttempt(Duration.ofMillis(300)))
        .as("the request's own timeout is smaller")
        .contains(Duration.ofMillis(300));
  }

  /** Retry-After extends the backoff (2 s > 0.25 s) and never shortens it (0 s < 0.25 s). */
  @Test
  void retryAfterExtendsButNeverShrinksTheBackoff() {
    RetryRun run = run(policy().maxAttempts(5).build(), "GET", null);
    run.beginAttempt(null);
    assertThat(run.onResponse(429, "2", none(), "r").delay()).isEqualTo(Duration.ofSeconds(2));
    run.beginAttempt(null);
    assertThat(run.onResponse(503, "0", none(), "r").delay()).isEqualTo(Duration.ofMillis(500));
    run.beginAttempt(null);
    assertThat(run.onResponse(503, "Thu, 01 Jan 2026 00:00:09 GMT", none(), "r").delay())
        .isEqualTo(Duration.ofSeconds(9));
  }

  /**
   * A Retry-After larger than the time left stops at once: no wait, no token spent, last response
   * carried.
   */
  @Test
  void retryAfterBeyondTheDeadlineStopsAtOnce() {
    RetryPolicy p = policy().build();
    RetryRun run = run(p, "POST", OperationKey.of("k1"));
    run.beginAttempt(null);
    time.advance(Duration.ofSeconds(1));
    RetryRun.Decision s = run.onResponse(503, "30", none(), "the 503");
    assertThat(s.action()).isEqualTo(RetryRun.Action.STOP);
    assertThat(s.exception().reason()).isEqualTo(StopReason.RETRY_AFTER_BEYOND_DEADLINE);
    assertThat(s.exception().attempts()).isEqualTo(1);
    assertThat(s.exception().lastResponse()).contains("the 503");
    assertThat(s.exception().getMessage())
        .contains("asked to retry after 30.000 s, but only 29.000 s is left");
    assertThat(time.sleeps()).isEmpty();
    assertThat(p.budget().available()).isEqualTo(500);
  }

  /** A wait that would end at or past the deadline is not started. */
  @Test
  void noWaitRunsPastTheDeadline() {
    RetryPolicy p =
        policy()
            .deadline(Duration.ofSeconds(1))
            .environment(environment().withRandom(() -> 0.9))
            .build();
    RetryRun run = run(p, "GET", null);
    assertThat(run.beginAttempt(null)).contains(Duration.ofSeconds(1));
    time.advance(Duration.ofMillis(600)); // 0.4 s left; the wait would be 0.45 s
    RetryRun.Decision s = run.onResponse(502, null, none(), "r");
    assertThat(s.exception().reason()).isEqualTo(StopReason.DEADLINE);
    assertThat(s.exception().getMessage())
        .contains("next wait of 0.450 s would end at or past the deadline");
    assertThat(p.budget().available()).isEqualTo(500);
  }

  /** No attempt starts once the deadline has passed. */
  @Test
  void noAttemptStartsPastTheDeadline() {
    RetryRun run = run(policy().deadline(Duration.ofSeconds(1)).build(), "GET", null);
    run.beginAttempt(null);
    time.advance(Duration.ofSeconds(1));
    assertThat(run.beginAttempt(null)).isEmpty();
    assertThat(run.deadlinePassed().reason()).isEqualTo(StopReason.DEADLINE);
    assertThat(run.attempts()).isEqualTo(1);
  }

  /**
   * An empty budget is its own, logged, published stop reason, with the message AWS users asked
   * for.
   */
  @Test
  void anEmptyBudgetStopsRetrying() {
    RetryBudget budget = TokenBucketRetryBudget.builder().capacity(20).build();
    RetryPolicy p = policy().budget(budget).build();
    RetryRun run = run(p, "GET", null);
    run.beginAttempt(null);
    assertThat(run.onResponse(503, null, none(), "r").action()).isEqualTo(RetryRun.Action.RETRY);
    run.beginAttempt(null);
    RetryRun.Decision s = run.onResponse(503, null, none(), "r");
    assertThat(s.exception().reason()).isEqualTo(StopReason.BUDGET);
    assertThat(s.exception().getMessage())
        .contains("will not be retried to protect the caller and the server");
    assertThat(logger.messages(Level.WARNING)).anySatisfy(m -> assertThat(m).contains("(BUDGET)"));
    assertThat(events)
        .last()
        .isInstanceOfSatisfying(
            RetryEvent.GaveUp.class, g -> assertThat(g.reason()).isEqualTo(StopReason.BUDGET));
    // a throttled retry is cheaper and still fits in the 6 tokens left
    RetryRun other = run(p, "GET", null);
    other.beginAttempt(null);
    assertThat(other.onResponse(429, null, none(), "r").action()).isEqualTo(RetryRun.Action.RETRY);
  }

  /** A final response refunds the budget; a success after retries is published. */
  @Test
  void aFinalResponseRefundsTheBudget() {
    RetryPolicy p = policy().build();
    RetryRun run = run(p, "GET", null);
    run.beginAttempt(null);
    run.onResponse(503, null, none(), "r");
    run.beginAttempt(null);
    assertThat(run.onResponse(200, null, none(), "ok").action()).isEqualTo(RetryRun.Action.RETURN);
    assertThat(p.budget().available()).isEqualTo(500 - 14 + 1);
    assertThat(events)
        .last()
        .isInstanceOfSatisfying(
            RetryEvent.SucceededAfterRetries.class, e -> assertThat(e.attempts()).isEqualTo(2));
  }

  /** A read timeout on a POST without a key is not re-sent; with a key it is. */
  @Test
  void readTimeoutsOfUnsafeMethodsNeedAKey() {
    RetryRun unkeyed = run(policy().build(), "POST", null);
    unkeyed.beginAttempt(null);
    HttpTimeoutException timeout = new HttpTimeoutException("request timed out");
    RetryRun.Decision s = unkeyed.onFailure(timeout);
    assertThat(s.exception().reason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(s.exception().getCause()).isSameAs(timeout);
    assertThat(s.exception().lastResponse()).isEmpty();

    RetryRun keyed = run(policy().build(), "POST", OperationKey.of("k"));
    keyed.beginAttempt(null);
    assertThat(keyed.onFailure(timeout).action()).isEqualTo(RetryRun.Action.RETRY);
  }

  /** Bugs are not classified, wrapped or retried: they propagate unchanged. */
  @Test
  void bugsPropagateUnchanged() {
    RetryRun run = run(policy().build(), "GET", null);
    run.beginAttempt(null);
    IllegalArgumentException bug = new IllegalArgumentException("bug");
    RetryRun.Decision s = run.onFailure(new java.util.concurrent.CompletionException(bug));
    assertThat(s.action()).isEqualTo(RetryRun.Action.PROPAGATE);
    assertThat(s.bug()).isSameAs(bug);
  }

  /**
   * Every retry is logged with attempt, cause, next wait and time left, and published with the same
   * facts.
   */
  @Test
  void everyRetryIsLoggedAndPublished() {
    RetryRun run = run(policy().build(), "POST", OperationKey.of("order-confirm-1"));
    run.beginAttempt(null);
    time.advance(Duration.ofSeconds(2));
    run.onResponse(503, null, new ProblemDetails("idempotency_store_unavailable", true), "r");
    assertThat(logger.messages(Level.INFO))
        .singleElement()
        .asString()
        .contains("retrying POST http://127.0.0.1/x [Idempotency-Key order-confirm-1]")
        .contains("attempt 1 of 3 failed with HTTP 503 (idempotency_store_unavailable)")
        .contains("next attempt in 250 ms")
        .contains("28000 ms left before the deadline");
    assertThat(events)
        .singleElement()
        .isInstanceOfSatisfying(
            RetryEvent.RetryScheduled.class,
            e -> {
              assertThat(e.attempt()).isEqualTo(1);
              assertThat(e.delay()).isEqualTo(Duration.ofMillis(250));
              assertThat(e.timeLeft()).isEqualTo(Duration.ofSeconds(28));
              assertThat(e.key()).contains(OperationKey.of("order-confirm-1"));
              assertThat(e.cause()).isEqualTo("HTTP 503 (idempotency_store_unavailable)");
            });
  }

  /** A listener that throws is logged and ignored. */
  @Test
  void aBrokenListenerNeverBreaksACall() {
    RetryPolicy p =
        policy()
            .listener(
                e -> {
                  throw new IllegalStateException("listener bug");
                })
            .build();
    RetryRun run = run(p, "GET", null);
    run.beginAttempt(null);
    assertThat(run.onResponse(503, null, none(), "r").action()).isEqualTo(RetryRun.Action.RETRY);
    assertThat(logger.messages(Level.WARNING))
        .anySatisfy(m -> assertThat(m).contains("retry listener"));
  }

  /**
   * Decorrelated jitter grows from the previous backoff: 1.0 s, then random(0.5, 3.0) at 0.5 = 1.75
   * s.
   */
  @Test
  void decorrelatedJitterThroughARun() {
    RetryPolicy p =
        policy()
            .maxAttempts(3)
            .backoff(Backoff.decorrelatedJitter(Duration.ofMillis(500), Duration.ofSeconds(20)))
            .build();
    RetryRun run = run(p, "GET", null);
    run.beginAttempt(null);
    assertThat(run.onResponse(504, null, none(), "r").delay()).isEqualTo(Duration.ofMillis(1000));
    run.beginAttempt(null);
    assertThat(run.onResponse(504, null, none(), "r").delay()).isEqualTo(Duration.ofMillis(1750));
  }
}
