package dev.idempotency.client.functional;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RecordingLogger;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.http.IdempotentResponse;
import dev.idempotency.client.http.RetryingHttpClient;
import dev.idempotency.client.http.ScriptedServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Both halves together, over a real socket: the client's retries reuse one key and the server's engine collapses
 * the duplicates. The guarantee under test: a POST retried through lost responses has the effect of one POST, and
 * the caller ends with the (replayed) response of that one execution.
 */
class DroppedResponsesEndToEndTest {
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final FakeTime time = new FakeTime();
  private ScriptedServer server;
  private EngineBackedServer engine;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (engine != null) {
      engine.close();
    }
  }

  private void start(Duration lease, long operationMillis) throws Exception {
    server = new ScriptedServer();
    engine = new EngineBackedServer(lease, operationMillis);
  }

  private HttpRequest confirmOrder() {
    return HttpRequest.newBuilder(server.uri("/orders/4711/confirm"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}")).header("Content-Type", "application/json")
        .build();
  }

  /** Two lost responses, then the replay: one side effect, three attempts at the wire, one key. */
  @Test
  void aPostRetriedThroughDroppedResponsesRunsOnceAndEndsWithTheReplay() throws Exception {
    start(Duration.ofSeconds(30), 0);
    server.then(engine.processThenDrop(), engine.processThenDrop(), engine.processAndRespond());
    RetryPolicy policy = RetryPolicy.builder().ticker(time).clock(time).sleeper(time).logger(new RecordingLogger())
        .build();

    IdempotentResponse<String> response = RetryingHttpClient.builder(http).policy(policy).build()
        .send(confirmOrder(), BodyHandlers.ofString());

    assertThat(engine.sideEffects()).isEqualTo(1);
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.body()).isEqualTo("{\"order\":1}");
    assertThat(response.replayed()).isTrue();
    assertThat(response.attempts()).isEqualTo(3);
    assertThat(server.wireCount()).isEqualTo(3);
    assertThat(server.received()).extracting(ScriptedServer.Received::idempotencyKey)
        .containsOnly(response.idempotencyKey().orElseThrow().value());
  }

  /** The same through sendAsync, with a response cut off mid-body, and an event-derived key. */
  @Test
  void theSameAsynchronouslyWithAnAbortedResponseAndAnEventKey() throws Exception {
    start(Duration.ofSeconds(30), 0);
    server.then(engine.processThenAbort(), engine.processThenDrop(), engine.processAndRespond());
    RetryPolicy policy = RetryPolicy.builder().ticker(time).clock(time).sleeper(time).logger(new RecordingLogger())
        .build();

    IdempotentResponse<String> response = RetryingHttpClient.builder(http).policy(policy).build()
        .call(confirmOrder()).idempotencyKey(OperationKey.forEvent("order-confirm", "4711"))
        .sendAsync(BodyHandlers.ofString()).get(30, TimeUnit.SECONDS);

    assertThat(engine.sideEffects()).isEqualTo(1);
    assertThat(response.replayed()).isTrue();
    assertThat(response.body()).isEqualTo("{\"order\":1}");
    assertThat(server.received()).extracting(ScriptedServer.Received::idempotencyKey)
        .containsExactly("order-confirm-4711", "order-confirm-4711", "order-confirm-4711");
  }

  /**
   * Real time. The first attempt times out while the server is still executing; the retry meets the server's
   * in-flight 409 with Retry-After, waits it out, and then gets the replay. One side effect.
   */
  @Test
  void aRetryThatMeetsTheInFlightConflictWaitsAndGetsTheReplay() throws Exception {
    start(Duration.ofSeconds(2), 1_000);
    server.then(engine.processAndRespond());
    List<RetryEvent> events = new CopyOnWriteArrayList<>();
    RetryPolicy policy = RetryPolicy.builder().maxAttempts(5).attemptTimeout(Duration.ofMillis(300))
        .backoff(dev.idempotency.client.Backoff.fullJitter(Duration.ofMillis(50), Duration.ofSeconds(1)))
        .listener(events::add).logger(new RecordingLogger()).build();

    IdempotentResponse<String> response = RetryingHttpClient.builder(http).policy(policy).build()
        .send(confirmOrder(), BodyHandlers.ofString());

    assertThat(engine.sideEffects()).isEqualTo(1);
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.replayed()).isTrue();
    assertThat(events).filteredOn(RetryEvent.RetryScheduled.class::isInstance)
        .map(e -> ((RetryEvent.RetryScheduled) e).cause())
        .contains("HTTP 409 (idempotency_request_in_flight)");
  }
}
