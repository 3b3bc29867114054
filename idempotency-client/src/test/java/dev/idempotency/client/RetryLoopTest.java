package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.RecordingLogger;
import java.io.IOException;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The loop other HTTP clients' adapters drive: the same decisions as the JDK adapter's. */
class RetryLoopTest {
  private final FakeTime time = new FakeTime();
  private final List<RetryEvent> events = new CopyOnWriteArrayList<>();

  private RetryPolicy.Builder policy() {
    return RetryPolicy.builder()
        .environment(time.environment().withLogger(new RecordingLogger()).withRandom(() -> 0.5))
        .listener(events::add);
  }

  @Test
  void aRetryableResponseIsRetriedAfterItsRetryAfterThenTheAnswerIsReturned() {
    OperationKey key = OperationKey.of("k-1");
    RetryLoop loop = RetryLoop.start(policy().build(), "POST", "POST http://x/y", key);

    assertThat(loop.beginAttempt(null)).hasValue(RetryPolicy.DEFAULT_ATTEMPT_TIMEOUT);
    RetryLoop.Step first = loop.afterResponse(503, "2", null, "the 503");
    assertThat(first.action()).isEqualTo(RetryLoop.Step.Action.RETRY);
    assertThat(first.delay()).isEqualTo(Duration.ofSeconds(2));
    time.sleep(first.delay());

    assertThat(loop.beginAttempt(Duration.ofSeconds(3))).hasValue(Duration.ofSeconds(3));
    assertThat(loop.afterResponse(201, null, null, "the 201").action())
        .isEqualTo(RetryLoop.Step.Action.RETURN);
    assertThat(loop.attempts()).isEqualTo(2);
    assertThat(loop.key()).hasValue(key);
    assertThat(events)
        .hasSize(2)
        .first()
        .isInstanceOfSatisfying(
            RetryEvent.RetryScheduled.class,
            e -> {
              assertThat(e.key()).hasValue(key);
              assertThat(e.cause()).isEqualTo("HTTP 503");
            });
  }

  /** The problem body's members reach the allowlist: "retryable": false stops a 503. */
  @Test
  void theProblemBodyIsRead() {
    RetryLoop loop = RetryLoop.start(policy().build(), "POST", "op", OperationKey.of("k"));
    loop.beginAttempt(null);
    byte[] body = "{\"code\":\"maintenance\",\"retryable\":false}".getBytes(StandardCharsets.UTF_8);

    assertThat(loop.afterResponse(503, null, body, "r").action())
        .isEqualTo(RetryLoop.Step.Action.RETURN);
  }

  @Test
  void aLostConnectionStopsAnUnkeyedPostAndIsRetriedForAKeyedOne() {
    RetryLoop unkeyed = RetryLoop.start(policy().build(), "POST", "op", null);
    unkeyed.beginAttempt(null);
    RetryLoop.Step stop = unkeyed.afterFailure(new SocketException("Connection reset"));
    assertThat(stop.action()).isEqualTo(RetryLoop.Step.Action.STOP);
    assertThat(stop.exception().reason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(stop.exception()).hasCauseInstanceOf(SocketException.class);

    RetryLoop keyed = RetryLoop.start(policy().build(), "POST", "op", OperationKey.of("k"));
    keyed.beginAttempt(null);
    assertThat(keyed.afterFailure(new IOException("unexpected end of stream")).action())
        .isEqualTo(RetryLoop.Step.Action.RETRY);
  }

  @Test
  void anUncheckedFailurePropagatesUnchanged() {
    RetryLoop loop = RetryLoop.start(policy().build(), "GET", "op", null);
    loop.beginAttempt(null);
    IllegalStateException bug = new IllegalStateException("open circuit");

    RetryLoop.Step step = loop.afterFailure(bug);

    assertThat(step.action()).isEqualTo(RetryLoop.Step.Action.PROPAGATE);
    assertThat(step.failure()).isSameAs(bug);
  }

  /** The budget is the policy's: two loops of one policy drain one bucket. */
  @Test
  void theBudgetIsSharedByEveryLoopOfAPolicy() {
    RetryPolicy policy =
        policy().budget(TokenBucketRetryBudget.builder().capacity(14).build()).build();
    RetryLoop first = RetryLoop.start(policy, "GET", "op", null);
    first.beginAttempt(null);
    assertThat(first.afterResponse(503, null, null, "r").action())
        .isEqualTo(RetryLoop.Step.Action.RETRY);

    RetryLoop second = RetryLoop.start(policy, "GET", "op", null);
    second.beginAttempt(null);
    RetryLoop.Step step = second.afterResponse(503, null, null, "r");
    assertThat(step.action()).isEqualTo(RetryLoop.Step.Action.STOP);
    assertThat(step.exception().reason()).isEqualTo(StopReason.BUDGET);
    assertThat(step.exception().lastResponse()).hasValue("r");
  }

  @Test
  void noAttemptStartsPastTheDeadline() {
    RetryLoop loop =
        RetryLoop.start(policy().deadline(Duration.ofSeconds(1)).build(), "GET", "op", null);
    time.advance(Duration.ofSeconds(1));

    assertThat(loop.beginAttempt(null)).isEmpty();
    assertThat(loop.deadlinePassed().reason()).isEqualTo(StopReason.DEADLINE);
  }

  @Test
  void keysAreMintedForPostAndPatchOnly() {
    assertThat(RetryLoop.mintsKeyFor("post")).isTrue();
    assertThat(RetryLoop.mintsKeyFor("PATCH")).isTrue();
    assertThat(RetryLoop.mintsKeyFor("PUT")).isFalse();
    assertThat(RetryLoop.mintsKeyFor("GET")).isFalse();
  }

  @Test
  void operationsAreNamedWithoutUserInfoOrQuery() {
    assertThat(
            RetryLoop.describe(
                "POST", URI.create("https://user:secret@api.example.com:8443/o/1?token=abc#f")))
        .isEqualTo("POST https://api.example.com:8443/o/1");
  }

  @Test
  void onlyJsonBodiesOfTheStatusesThatMayCarryAVerdictAreRead() {
    assertThat(RetryLoop.readsProblemBody(503, "application/problem+json")).isTrue();
    assertThat(RetryLoop.readsProblemBody(409, "application/json; charset=utf-8")).isTrue();
    assertThat(RetryLoop.readsProblemBody(503, "text/html")).isFalse();
    assertThat(RetryLoop.readsProblemBody(503, null)).isFalse();
    assertThat(RetryLoop.readsProblemBody(200, "application/json")).isFalse();
    assertThat(RetryLoop.readsProblemBody(400, "application/problem+json")).isFalse();
  }
}
