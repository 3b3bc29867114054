package dev.idempotency.client.http;

import static dev.idempotency.client.http.ScriptedServer.dropConnection;
import static dev.idempotency.client.http.ScriptedServer.problem;
import static dev.idempotency.client.http.ScriptedServer.respond;
import static dev.idempotency.client.http.ScriptedServer.respondThenAbort;
import static dev.idempotency.client.http.ScriptedServer.stall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.client.TokenBucketRetryBudget;
import dev.idempotency.testing.RecordingLogger;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The adapter against a real HTTP server on 127.0.0.1 that fails on purpose. Waits go through a
 * fake sleeper (so a Retry-After of seconds costs nothing) except where a test says it uses real
 * time; attempts are counted at the server, at the wire.
 */
class RetryingHttpClientTest {
  private final ScriptedServer server = ScriptedServer.start();
  private final FakeTime time = new FakeTime();
  private final HttpClient http = ScriptedServer.http11Client();

  @AfterEach
  void stop() {
    server.close();
  }

  private RetryPolicy.Builder fakeTimePolicy() {
    return RetryPolicy.builder()
        .environment(time.environment().withRandom(() -> 0.5).withLogger(new RecordingLogger()));
  }

  /**
   * Real time, for the tests that measure waits at the server; the log goes to a recording logger.
   */
  private static RetryEnvironment realTimeEnvironment() {
    return RetryEnvironment.system().withLogger(new RecordingLogger());
  }

  private RetryingHttpClient client(RetryPolicy policy) {
    return RetryingHttpClient.builder(http).policy(policy).build();
  }

  private HttpRequest post(String path, String body) {
    return HttpRequest.newBuilder(server.uri(path))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json")
        .build();
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(server.uri(path)).GET().build();
  }

  /**
   * A POST without a key gets one minted once; 503s with Retry-After are waited out; every attempt
   * has the key.
   */
  @Test
  void retries503WithRetryAfterAndReusesTheMintedKey() throws Exception {
    server.then(
        problem(503, "idempotency_store_unavailable", true, "2"),
        respond(503, Map.of("Retry-After", "1"), ""),
        respond(201, "created"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build()).send(post("/orders", "{}"), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.body()).isEqualTo("created");
    assertThat(response.attempts()).isEqualTo(3);
    assertThat(response.replayed()).isFalse();
    assertThat(server.wireCount()).isEqualTo(3);
    String key = response.idempotencyKey().orElseThrow().value();
    assertThat(response.idempotencyKey().orElseThrow().derivation())
        .isEqualTo(OperationKey.Derivation.RANDOM);
    assertThat(server.received())
        .extracting(ScriptedServer.Received::idempotencyKey)
        .containsOnly(key);
    assertThat(server.received()).extracting(ScriptedServer.Received::bodyText).containsOnly("{}");
    // Retry-After (2 s, 1 s) extended the backoff (0.25 s, 0.5 s)
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(1));
  }

  /** An HTTP-date Retry-After is read against the injected wall clock. */
  @Test
  void honoursAnHttpDateRetryAfterOn429() throws Exception {
    String at =
        DateTimeFormatter.RFC_1123_DATE_TIME.format(
            FakeTime.EPOCH.plusSeconds(5).atOffset(ZoneOffset.UTC));
    server.then(respond(429, Map.of("Retry-After", at), "slow down"), respond(200, "ok"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build()).send(get("/r"), BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(5));
    assertThat(server.wireCount()).isEqualTo(2);
  }

  /**
   * Retry-After beyond the time left: stop at once, no wait, with the last response in the
   * exception.
   */
  @Test
  void retryAfterBeyondTheDeadlineStopsAtOnce() {
    server.then(problem(503, "idempotency_store_unavailable", true, "120"));
    RetriesExhaustedException e =
        catchThrowableOfType(
            () ->
                client(fakeTimePolicy().build())
                    .send(post("/orders", "{}"), BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    assertThat(e.reason()).isEqualTo(StopReason.RETRY_AFTER_BEYOND_DEADLINE);
    assertThat(e.attempts()).isEqualTo(1);
    IdempotentResponse<?> last = e.lastResponse(IdempotentResponse.class).orElseThrow();
    assertThat(last.statusCode()).isEqualTo(503);
    assertThat((String) last.body()).contains("\"code\":\"idempotency_store_unavailable\"");
    assertThat(time.sleeps()).isEmpty();
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /** The server's in-flight 409 is retried after its Retry-After, with the same key. */
  @Test
  void theInFlight409IsRetriedAfterItsRetryAfter() throws Exception {
    server.then(problem(409, "idempotency_request_in_flight", true, "1"), respond(201, "done"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build()).send(post("/orders", "{}"), BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(1));
    assertThat(server.received().get(0).idempotencyKey())
        .isEqualTo(server.received().get(1).idempotencyKey());
  }

  /**
   * A 409 for a reused key is a client bug: returned, not retried, and its problem body still
   * reaches the caller.
   */
  @Test
  void theKeyReused409IsReturnedNotRetried() throws Exception {
    server.then(problem(409, "idempotency_key_reused", false, null));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build()).send(post("/orders", "{}"), BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(409);
    assertThat(response.body()).contains("\"code\":\"idempotency_key_reused\"");
    assertThat(response.attempts()).isEqualTo(1);
    assertThat(server.wireCount()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(ints = {400, 401, 403, 404, 422, 500, 501})
  void nonRetryableStatusesAreReturnedAfterOneAttempt(int status) throws Exception {
    server.then(respond(status, "no"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build()).send(get("/x"), BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /** A 500 whose problem body says "retryable": true is retried. */
  @Test
  void a500MarkedRetryableIsRetried() throws Exception {
    server.then(problem(500, "transient_glitch", true, null), respond(200, "ok"));
    assertThat(
            client(fakeTimePolicy().build()).send(get("/x"), BodyHandlers.ofString()).statusCode())
        .isEqualTo(200);
    assertThat(server.wireCount()).isEqualTo(2);
  }

  /** A dropped connection after a POST without a key may have had its effect: it is not re-sent. */
  @Test
  void aDroppedPostWithoutAKeyIsNotResent() {
    server.then(dropConnection(), respond(201, "created"));
    RetryingHttpClient client =
        RetryingHttpClient.builder(http).policy(fakeTimePolicy().build()).autoKeyMethods().build();
    RetriesExhaustedException e =
        catchThrowableOfType(
            () -> client.send(post("/orders", "{}"), BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    assertThat(e.reason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(e.getCause()).isInstanceOf(IOException.class);
    assertThat(e.getMessage()).contains("without an idempotency key");
    assertThat(server.wireCount()).isEqualTo(1);
    assertThat(server.received().get(0).idempotencyKey()).isNull();
  }

  /**
   * A 504 on a POST without a key may mean a gateway forwarded it and lost the answer: like a read
   * timeout, it is not re-sent. The 504 is returned to the caller after one attempt at the wire.
   */
  @Test
  void a504OnAPostWithoutAKeyIsNotResent() throws Exception {
    server.then(respond(504, "gateway timeout"), respond(201, "created"));
    RetryingHttpClient client =
        RetryingHttpClient.builder(http).policy(fakeTimePolicy().build()).autoKeyMethods().build();
    IdempotentResponse<String> response =
        client.send(post("/orders", "{}"), BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(504);
    assertThat(response.attempts()).isEqualTo(1);
    assertThat(response.idempotencyKey()).isEmpty();
    assertThat(server.wireCount()).isEqualTo(1);
    assertThat(server.received().get(0).idempotencyKey()).isNull();
    assertThat(time.sleeps()).isEmpty();
  }

  /**
   * A dropped connection on a GET is retried, and the JDK's HttpClient re-sends a GET once by
   * itself when the connection closes before any response byte (its hidden retry, below ours): two
   * drops cost one of our attempts and two requests at the wire. This is why every test here counts
   * at the wire, and why a POST must carry a key even with retries off.
   */
  @Test
  void aDroppedGetIsRetriedAndTheJdkAddsItsOwnHiddenResend() throws Exception {
    server.then(dropConnection(), dropConnection(), dropConnection(), respond(200, "ok"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build()).send(get("/x"), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("ok");
    assertThat(response.attempts()).isEqualTo(2);
    assertThat(server.wireCount())
        .as("2 attempts of ours, each re-sent once by the JDK")
        .isEqualTo(4);
    assertThat(response.idempotencyKey()).isEmpty();
  }

  /** A response cut off mid-body on a keyed POST is retried with the same key. */
  @Test
  void aResponseAbortedMidBodyIsRetriedWithTheSameKey() throws Exception {
    server.then(respondThenAbort(), respond(201, "created"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build()).send(post("/orders", "{}"), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("created");
    assertThat(server.wireCount()).isEqualTo(2);
    assertThat(server.received().get(1).idempotencyKey())
        .isEqualTo(server.received().get(0).idempotencyKey())
        .isNotNull();
  }

  /**
   * An attempt that stalls past its timeout is abandoned and retried (GET). The timeout is real
   * time and bounds the second attempt too, so it is long enough for a loaded machine to connect
   * and answer (1 s), and still far below the 10 s stall.
   */
  @Test
  void anAttemptStalledPastItsTimeoutIsRetried() throws Exception {
    server.then(stall(10_000), respond(200, "ok"));
    RetryPolicy policy = fakeTimePolicy().attemptTimeout(Duration.ofSeconds(1)).build();
    IdempotentResponse<String> response =
        client(policy).send(get("/slow"), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("ok");
    assertThat(response.attempts()).isEqualTo(2);
    assertThat(server.wireCount()).isEqualTo(2);
    assertThat(response.request().timeout()).contains(Duration.ofSeconds(1));
  }

  /**
   * A stalled POST without a key is not re-sent: the read timeout says nothing about whether it
   * ran.
   */
  @Test
  void aStalledPostWithoutAKeyIsNotResent() {
    server.then(stall(10_000));
    RetryingHttpClient client =
        RetryingHttpClient.builder(http)
            .policy(fakeTimePolicy().attemptTimeout(Duration.ofMillis(300)).build())
            .autoKeyMethods()
            .build();
    RetriesExhaustedException e =
        catchThrowableOfType(
            () -> client.send(post("/orders", "{}"), BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    assertThat(e.reason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(e.getCause()).isInstanceOf(HttpTimeoutException.class);
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /**
   * Real time: with a 1 s deadline and a 10 s attempt timeout, the one attempt gets 1 s and the
   * call stops at the deadline instead of waiting 10 s. Bounds are generous: at least 1 s, well
   * under 10 s.
   */
  @Test
  void theDeadlineClampsTheAttemptTimeout() {
    server.then(stall(20_000));
    RetryPolicy policy =
        RetryPolicy.builder()
            .deadline(Duration.ofSeconds(1))
            .environment(realTimeEnvironment())
            .build();
    long start = System.nanoTime();
    RetriesExhaustedException e =
        catchThrowableOfType(
            () -> client(policy).send(get("/slow"), BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(e.reason()).isEqualTo(StopReason.DEADLINE);
    assertThat(e.attempts()).isEqualTo(1);
    assertThat(e.getCause()).isInstanceOf(HttpTimeoutException.class);
    assertThat(tookMillis).isBetween(950L, 8_000L);
  }

  /** Connection refused is retried up to maxAttempts (no wire to count: nothing listens). */
  @Test
  void connectionRefusedIsRetriedUpToMaxAttempts() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    RetriesExhaustedException e =
        catchThrowableOfType(
            () -> client(fakeTimePolicy().build()).send(request, BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    assertThat(e.reason()).isEqualTo(StopReason.ATTEMPTS);
    assertThat(e.attempts()).isEqualTo(3);
    assertThat(e.getCause()).isInstanceOf(ConnectException.class);
    assertThat(time.sleeps()).containsExactly(Duration.ofMillis(250), Duration.ofMillis(500));
  }

  /** An empty budget ends the call with BUDGET after the retries it could pay for. */
  @Test
  void anEmptyBudgetStopsTheCall() {
    server.then(respond(503, ""));
    RetryPolicy policy =
        fakeTimePolicy().budget(TokenBucketRetryBudget.builder().capacity(14).build()).build();
    RetriesExhaustedException e =
        catchThrowableOfType(
            () -> client(policy).send(get("/x"), BodyHandlers.ofString()),
            RetriesExhaustedException.class);
    assertThat(e.reason()).isEqualTo(StopReason.BUDGET);
    assertThat(e.attempts()).isEqualTo(2);
    assertThat(server.wireCount()).isEqualTo(2);
  }

  /**
   * sendAsync retries the same way and never blocks; failures complete the future with the same
   * exception.
   */
  @Test
  void sendAsyncRetriesWithTheSameKey() throws Exception {
    server.then(respond(502, ""), dropConnection(), respond(201, "created"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build())
            .sendAsync(post("/orders", "{}"), BodyHandlers.ofString())
            .get(30, TimeUnit.SECONDS);
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.attempts()).isEqualTo(3);
    assertThat(server.received())
        .extracting(ScriptedServer.Received::idempotencyKey)
        .containsOnly(response.idempotencyKey().orElseThrow().value());

    server.then(respond(503, ""));
    ExecutionException failed =
        catchThrowableOfType(
            () ->
                client(fakeTimePolicy().build())
                    .sendAsync(get("/x"), BodyHandlers.ofString())
                    .get(30, TimeUnit.SECONDS),
            ExecutionException.class);
    assertThat(failed.getCause())
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            e -> assertThat(e.reason()).isEqualTo(StopReason.ATTEMPTS));
  }

  /**
   * sendAsync with the real sleeper waits on the delayed executor, and still honours Retry-After.
   */
  @Test
  void sendAsyncWaitsWithoutBlockingInRealTime() throws Exception {
    server.then(respond(429, Map.of("Retry-After", "1"), ""), respond(200, "ok"));
    RetryPolicy policy = RetryPolicy.builder().environment(realTimeEnvironment()).build();
    IdempotentResponse<String> response =
        client(policy).sendAsync(get("/x"), BodyHandlers.ofString()).get(30, TimeUnit.SECONDS);
    assertThat(response.body()).isEqualTo("ok");
    long gap = server.received().get(1).arrivalNanos() - server.received().get(0).arrivalNanos();
    assertThat(gap)
        .as("the retry never fires before Retry-After")
        .isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  /** Real time, blocking: the retry arrives at the server no earlier than Retry-After asked. */
  @Test
  void theRetryNeverFiresBeforeRetryAfter() throws Exception {
    server.then(respond(503, Map.of("Retry-After", "1"), ""), respond(200, "ok"));
    RetryPolicy policy = RetryPolicy.builder().environment(realTimeEnvironment()).build();
    client(policy).send(get("/x"), BodyHandlers.ofString());
    long gap = server.received().get(1).arrivalNanos() - server.received().get(0).arrivalNanos();
    assertThat(gap).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  /**
   * The key is fixed when the call is built: an explicit or header key is sent as is, and cannot
   * change later.
   */
  @Test
  void theKeyIsFixedWhenTheCallIsBuilt() throws Exception {
    server.then(respond(200, "ok"));
    RetryingHttpClient client = client(fakeTimePolicy().build());
    HttpCall call =
        client
            .call(post("/orders/4711/confirm", "{}"))
            .idempotencyKey(OperationKey.forEvent("order-confirm", "4711"));
    call.send(BodyHandlers.ofString());
    call.send(BodyHandlers.ofString());
    assertThat(server.received())
        .extracting(ScriptedServer.Received::idempotencyKey)
        .containsExactly("order-confirm-4711", "order-confirm-4711");
    assertThatThrownBy(() -> call.idempotencyKey(OperationKey.random()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fixed once the call was sent");

    HttpRequest withHeader =
        HttpRequest.newBuilder(server.uri("/p"))
            .header("Idempotency-Key", "caller-key-1")
            .method("PATCH", HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    assertThat(client.call(withHeader).idempotencyKey()).contains(OperationKey.of("caller-key-1"));
    client.send(withHeader, BodyHandlers.ofString());
    assertThat(server.received().get(2).idempotencyKey()).isEqualTo("caller-key-1");
    assertThat(client.call(get("/x")).idempotencyKey()).isEmpty();
    assertThatThrownBy(
            () ->
                client.call(
                    HttpRequest.newBuilder(server.uri("/p"))
                        .header("Idempotency-Key", "a b")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Two logical calls of the same request get two keys: minting is per call, never per attempt or
   * per client.
   */
  @Test
  void eachLogicalCallGetsItsOwnKey() throws Exception {
    server.then(respond(503, ""), respond(200, "ok"));
    RetryingHttpClient client = client(fakeTimePolicy().build());
    HttpRequest request = post("/orders", "{}");
    client.send(request, BodyHandlers.ofString());
    client.send(request, BodyHandlers.ofString());
    var keys = server.received().stream().map(ScriptedServer.Received::idempotencyKey).toList();
    assertThat(keys).hasSize(3);
    assertThat(keys.get(0)).isEqualTo(keys.get(1));
    assertThat(keys.get(2)).isNotEqualTo(keys.get(0));
  }

  /** A per-call deadline replaces the policy's and bounds the attempt timeout. */
  @Test
  void aPerCallDeadlineBoundsTheAttemptTimeout() throws Exception {
    server.then(respond(200, "ok"));
    IdempotentResponse<String> response =
        client(fakeTimePolicy().build())
            .call(get("/x"))
            .deadline(Duration.ofSeconds(2))
            .send(BodyHandlers.ofString());
    assertThat(response.request().timeout()).contains(Duration.ofSeconds(2));
  }

  /**
   * A streaming body of a retried response is closed (freeing its connection); the final one
   * reaches the caller.
   */
  @Test
  void streamingBodiesWork() throws Exception {
    server.then(
        problem(503, "idempotency_store_unavailable", true, null), respond(200, "streamed"));
    IdempotentResponse<InputStream> response =
        client(fakeTimePolicy().build()).send(get("/s"), BodyHandlers.ofInputStream());
    try (InputStream in = response.body()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("streamed");
    }
  }
}
