package dev.idempotency.client.http;

import static dev.idempotency.client.http.ScriptedServer.headersThenStall;
import static dev.idempotency.client.http.ScriptedServer.respond;
import static dev.idempotency.client.http.ScriptedServer.trickle;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.RecordingLogger;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The one deadline covers the whole exchange, response body included: a server that sends its
 * headers and then stalls, trickles, or never ends its body cannot hold the caller past the
 * deadline. Real time and a real server on 127.0.0.1; every test is bounded by its own timeout (run
 * on a separate thread, so a hang fails instead of blocking the build), and none asserts a
 * duration.
 */
@Timeout(value = 20, threadMode = ThreadMode.SEPARATE_THREAD)
class ResponseBodyDeadlineTest {
  private final ScriptedServer server = ScriptedServer.start();
  private final HttpClient http = ScriptedServer.http11Client();
  private final CountDownLatch headersSent = new CountDownLatch(1);

  @AfterEach
  void stop() {
    server.close();
  }

  private RetryingHttpClient realTimeClient(Duration deadline) {
    return RetryingHttpClient.builder(http)
        .policy(
            RetryPolicy.builder()
                .deadline(deadline)
                .environment(RetryEnvironment.system().withLogger(new RecordingLogger()))
                .build())
        .build();
  }

  private HttpRequest post(String path) {
    return HttpRequest.newBuilder(server.uri(path))
        .POST(HttpRequest.BodyPublishers.ofString("{}"))
        .build();
  }

  private static void assertStoppedAtTheDeadlineInTheBody(RetriesExhaustedException e) {
    assertThat(e)
        .as("the call must stop with DEADLINE once the deadline passes while the body is read")
        .isNotNull();
    assertThat(e.reason()).isEqualTo(StopReason.DEADLINE);
    assertThat(e.attempts()).as("no attempt may start after the deadline").isEqualTo(1);
    assertThat(e.getCause())
        .as("the cause tells that the body timed out and what the server had answered")
        .isInstanceOfSatisfying(
            ResponseBodyTimeoutException.class, t -> assertThat(t.statusCode()).isEqualTo(200));
    assertThat(e.getMessage()).contains("deadline").contains("HTTP 200");
  }

  /**
   * Headers, a few bytes, then nothing and no end: the call stops at its 1 s deadline instead of
   * waiting forever.
   */
  @Test
  void aBodyThatNeverEndsStopsTheCallAtTheDeadline() {
    server.then(headersThenStall(headersSent));
    RetriesExhaustedException e =
        catchThrowableOfType(
            () ->
                realTimeClient(Duration.ofSeconds(1))
                    .send(
                        HttpRequest.newBuilder(server.uri("/stall")).GET().build(),
                        BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    assertStoppedAtTheDeadlineInTheBody(e);
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /**
   * A body that keeps arriving, one byte at a time, never lets a per-read timeout fire; the
   * deadline still ends the call. A keyed POST would be retryable, but not after the deadline: one
   * request at the wire.
   */
  @Test
  void aTricklingBodyStopsAKeyedPostAtTheDeadlineWithoutARetry() {
    server.then(trickle(100));
    RetriesExhaustedException e =
        catchThrowableOfType(
            () ->
                realTimeClient(Duration.ofSeconds(1))
                    .call(post("/o"))
                    .idempotencyKey(OperationKey.forEvent("order", "1"))
                    .send(BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    assertStoppedAtTheDeadlineInTheBody(e);
    assertThat(e.getMessage())
        .as("the message says whether the request may have been applied")
        .contains("the server had answered HTTP 200");
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /** sendAsync: the future fails at the deadline the same way. */
  @Test
  void sendAsyncStopsAtTheDeadlineToo() {
    server.then(headersThenStall(headersSent));
    ExecutionException failed =
        catchThrowableOfType(
            () ->
                realTimeClient(Duration.ofSeconds(1))
                    .sendAsync(
                        HttpRequest.newBuilder(server.uri("/stall")).GET().build(),
                        BodyHandlers.ofString())
                    .get(15, TimeUnit.SECONDS),
            ExecutionException.class);
    assertThat(failed)
        .as("the future must fail at the deadline, not hang or time out the test's get")
        .isNotNull();
    assertThat(failed.getCause()).isInstanceOf(RetriesExhaustedException.class);
    assertStoppedAtTheDeadlineInTheBody((RetriesExhaustedException) failed.getCause());
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /**
   * A body stalled past the attempt timeout, with time left before the deadline, is a read timeout:
   * a keyed POST is retried with the same key, and the second attempt's response is returned.
   */
  @Test
  void aBodyStalledPastTheAttemptTimeoutIsRetriedLikeAReadTimeout() throws Exception {
    server.then(headersThenStall(headersSent), respond(201, "created"));
    FakeTime time = new FakeTime();
    RetryPolicy policy =
        RetryPolicy.builder()
            .attemptTimeout(Duration.ofMillis(300))
            .environment(time.environment().withRandom(() -> 0.5).withLogger(new RecordingLogger()))
            .build();
    IdempotentResponse<String> response =
        RetryingHttpClient.builder(http)
            .policy(policy)
            .build()
            .send(post("/o"), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("created");
    assertThat(response.attempts()).isEqualTo(2);
    assertThat(server.wireCount()).isEqualTo(2);
    assertThat(server.received().get(1).idempotencyKey())
        .isEqualTo(server.received().get(0).idempotencyKey())
        .isNotNull();
  }

  /**
   * A streaming handler returns at the headers and the caller reads afterwards: the deadline keeps
   * running during those reads, and a body that stalls fails the caller's read with the timeout as
   * the cause.
   */
  @Test
  void aStreamingBodyIsCutAtTheDeadlineWhileTheCallerReads() throws Exception {
    server.then(headersThenStall(headersSent));
    IdempotentResponse<InputStream> response =
        realTimeClient(Duration.ofSeconds(1))
            .send(
                HttpRequest.newBuilder(server.uri("/stream")).GET().build(),
                BodyHandlers.ofInputStream());
    Throwable failed;
    try (InputStream in = response.body()) {
      failed = catchThrowable(in::readAllBytes);
    }
    assertThat(failed)
        .as("reading a stalled stream must fail at the deadline, not block")
        .isInstanceOf(IOException.class)
        .hasRootCauseInstanceOf(ResponseBodyTimeoutException.class);
  }

  /**
   * A caller interrupted while it waits for a stalled body gets InterruptedException, after one
   * attempt.
   */
  @Test
  void interruptingTheCallerReleasesItFromAStalledBody() throws Exception {
    server.then(headersThenStall(headersSent));
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread caller =
        new Thread(
            () ->
                outcome.set(
                    catchThrowable(
                        () ->
                            realTimeClient(Duration.ofSeconds(30))
                                .send(
                                    HttpRequest.newBuilder(server.uri("/stall")).GET().build(),
                                    BodyHandlers.ofString()))));
    caller.start();
    assertThat(headersSent.await(10, TimeUnit.SECONDS))
        .as("the server never sent the headers")
        .isTrue();
    caller.interrupt();
    caller.join(TimeUnit.SECONDS.toMillis(15));
    assertThat(caller.isAlive()).as("the interrupted caller is still blocked").isFalse();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertThat(server.wireCount()).isEqualTo(1);
  }
}
