package dev.idempotency.client.functional;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.Sleeper;
import dev.idempotency.client.http.IdempotentResponse;
import dev.idempotency.client.http.RetryingHttpClient;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.CountingConfirmApp;
import dev.idempotency.testing.Fault;
import dev.idempotency.testing.FaultInjectingProxy;
import dev.idempotency.testing.ProxyExchange;
import dev.idempotency.testing.RecordingLogger;
import dev.idempotency.testing.ScriptedFaults;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Both halves together, as deployed: the client over real sockets, a {@link FaultInjectingProxy}
 * that loses, resets, cuts off, holds back or sheds requests at the wire, and behind it the real
 * {@code IdempotencyFilter} in embedded Jetty 12 with a store (one subclass per store). The
 * guarantee under test: a POST retried through lost responses has the effect of one POST, and the
 * caller ends with the replayed response of that one execution.
 *
 * <p>Time: the client's waits run on a {@link FakeTime} (they are recorded, not slept); attempt
 * timeouts are real (they are the {@code HttpRequest} timeouts), so the two tests that need one
 * take about a second each. No assertion depends on how fast anything runs.
 */
abstract class FilterEndToEndContract {
  /**
   * One client for every test (Java 17's HttpClient has no close); HTTP/1.1, so the proxy sees
   * plain requests.
   */
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  static final String PATH = "/orders/4711/confirm";

  final FakeTime time = new FakeTime();
  final List<RetryEvent> events = new CopyOnWriteArrayList<>();
  private IdempotencyEngine engine;
  CountingConfirmApp jetty;
  FaultInjectingProxy proxy;

  /**
   * @return a fresh, empty store for one test
   */
  protected abstract KeyStore newStore() throws Exception;

  protected void closeStore() throws Exception {}

  @BeforeEach
  void startServers() throws Exception {
    // a 5 s lease: the in-flight 409's Retry-After (the owner's remaining lease) fits the client's
    // 30 s deadline
    engine =
        IdempotencyEngine.builder(newStore())
            .config(IdempotencyConfig.builder().lease(Duration.ofSeconds(5)).build())
            .build();
    // stepped on every store: the client's half is tested against the in-flight 409 and its
    // Retry-After, which a request in one transaction (the JDBC store's default) answers only after
    // its lock wait
    jetty =
        CountingConfirmApp.start(
            new IdempotencyFilter(
                IdempotencyHttp.builder(engine)
                    .endpoint(
                        EndpointRule.of(KeyRequirement.REQUIRED, "/**", "POST", "PATCH").stepped())
                    .build()));
    proxy = FaultInjectingProxy.start(jetty.port());
  }

  /** Closes the proxy, Jetty, the engine, then the store, each even if one before it failed. */
  @AfterEach
  void stopServers() throws Exception {
    try (IdempotencyEngine e = engine;
        CountingConfirmApp j = jetty;
        FaultInjectingProxy p = proxy) {
      // try-with-resources closes in reverse order, skips null resources (never started) and keeps
      // every failure
    } finally {
      closeStore();
    }
  }

  /** Fake time and a recording logger. */
  RetryEnvironment environment() {
    return time.environment().withLogger(new RecordingLogger());
  }

  RetryPolicy.Builder policy() {
    return RetryPolicy.builder().environment(environment()).listener(events::add);
  }

  static RetryingHttpClient client(RetryPolicy policy) {
    return RetryingHttpClient.builder(HTTP).policy(policy).build();
  }

  HttpRequest confirm(String json) {
    return HttpRequest.newBuilder(proxy.uri(PATH))
        .header("Authorization", "Bearer alice")
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json))
        .build();
  }

  /**
   * Attempts at the wire match the client's, and every one carried exactly the call's key, once.
   */
  void assertOneKeyOnEveryAttempt(IdempotentResponse<?> response) {
    String key = response.idempotencyKey().orElseThrow().value();
    assertThat(proxy.exchanges())
        .hasSize(response.attempts())
        .allSatisfy(
            e ->
                assertThat(e.idempotencyKeys())
                    .as("Idempotency-Key on %s", e)
                    .containsExactly(key));
  }

  /**
   * The caller got the first execution's response: same status, same body bytes, same Location,
   * marked replayed.
   */
  void assertReplayOfTheFirstExecution(IdempotentResponse<String> response) {
    ProxyExchange first = proxy.exchange(0);
    assertThat(first.upstreamStatus()).as("the first attempt was processed").isEqualTo(201);
    assertThat(first.upstreamHeader("Idempotent-Replayed")).isNull();
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.replayed()).isTrue();
    assertThat(response.body())
        .isEqualTo(first.upstreamBody())
        .isEqualTo("{\"confirmation\":1,\"user\":\"alice\",\"request\":{\"amount\":100}}");
    assertThat(response.headers().firstValue("Location")).hasValue(PATH + "/confirmations/1");
  }

  List<String> retryCauses() {
    return events.stream()
        .filter(RetryEvent.RetryScheduled.class::isInstance)
        .map(e -> ((RetryEvent.RetryScheduled) e).cause())
        .toList();
  }

  /**
   * Two lost responses (closed, then reset), then the replay: one side effect, three attempts, one
   * key.
   */
  @Test
  void aPostRetriedThroughDroppedResponsesRunsOnceAndEndsWithTheReplay() throws Exception {
    proxy.plan(
        new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD_THEN_RESET, Fault.FORWARD));

    IdempotentResponse<String> response =
        client(policy().build()).send(confirm("{\"amount\":100}"), BodyHandlers.ofString());

    assertThat(jetty.app.effects()).isEqualTo(1);
    assertReplayOfTheFirstExecution(response);
    assertThat(response.attempts()).isEqualTo(3);
    assertOneKeyOnEveryAttempt(response);
    assertThat(proxy.exchanges())
        .extracting(ProxyExchange::upstreamStatus)
        .containsExactly(201, 201, 201);
    assertThat(proxy.exchanges())
        .extracting(e -> e.upstreamHeader("Idempotent-Replayed"))
        .containsExactly(null, "true", "true");
    assertThat(retryCauses()).hasSize(2);
  }

  /** The same through sendAsync, with a response cut off mid-body, and an event-derived key. */
  @Test
  void theSameAsynchronouslyWithATruncatedResponseAndAnEventKey() throws Exception {
    proxy.plan(
        new ScriptedFaults(Fault.FORWARD_THEN_TRUNCATE, Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    IdempotentResponse<String> response =
        client(policy().build())
            .call(confirm("{\"amount\":100}"))
            .idempotencyKey(OperationKey.forEvent("order-confirm", "4711"))
            .sendAsync(BodyHandlers.ofString())
            .get(30, TimeUnit.SECONDS);

    assertThat(jetty.app.effects()).isEqualTo(1);
    assertReplayOfTheFirstExecution(response);
    assertThat(response.attempts()).isEqualTo(3);
    assertOneKeyOnEveryAttempt(response);
    assertThat(response.idempotencyKey().orElseThrow().value()).isEqualTo("order-confirm-4711");
  }

  /**
   * A proxy in front sheds load (503, Retry-After: 2) and rate-limits (429, Retry-After: 1) without
   * forwarding, and loses the one response in between: the waits honour Retry-After, only two
   * requests reach Jetty, one side effect.
   */
  @Test
  void retryAfterFromTheWireIsHonouredAndTheLostResponseIsReplayed() throws Exception {
    proxy
        .retryAfterSeconds(2, 1)
        .plan(
            new ScriptedFaults(
                Fault.ANSWER_503, Fault.FORWARD_THEN_DROP, Fault.ANSWER_429, Fault.FORWARD));

    IdempotentResponse<String> response =
        client(policy().maxAttempts(5).build())
            .send(confirm("{\"amount\":100}"), BodyHandlers.ofString());

    assertThat(jetty.app.effects()).isEqualTo(1);
    assertThat(response.attempts()).isEqualTo(4);
    assertOneKeyOnEveryAttempt(response);
    assertThat(jetty.requests).hasValue(2);
    assertThat(proxy.exchange(1).upstreamStatus()).isEqualTo(201);
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.replayed()).isTrue();
    assertThat(response.body()).isEqualTo(proxy.exchange(1).upstreamBody());
    List<Duration> sleeps = time.sleeps();
    assertThat(sleeps).hasSize(3);
    assertThat(sleeps.get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(sleeps.get(2)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    List<String> causes = retryCauses();
    assertThat(causes).hasSize(3);
    assertThat(causes.get(0)).startsWith("HTTP 503");
    assertThat(causes.get(2)).startsWith("HTTP 429");
  }

  /**
   * The proxy holds the processed response back past the attempt timeout (real, 1 s): the keyed
   * POST's read timeout is retried, and the retry gets the replay. The retry goes out once the
   * first execution's response has reached the proxy: a server slower than the attempt timeout
   * would otherwise still hold the key and answer the retry with 409 in flight. Ordered by events,
   * not by timing.
   */
  @Test
  void aResponseStalledPastTheAttemptTimeoutIsRetriedIntoTheReplay() throws Exception {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_STALL, Fault.FORWARD));
    Sleeper untilTheFirstResponseIsStored =
        d -> {
          time.sleep(d);
          assertThat(proxy.exchange(0).awaitUpstream(Duration.ofSeconds(10))).isTrue();
        };

    IdempotentResponse<String> response =
        client(
                policy()
                    .attemptTimeout(Duration.ofSeconds(1))
                    .environment(environment().withSleeper(untilTheFirstResponseIsStored))
                    .build())
            .send(confirm("{\"amount\":100}"), BodyHandlers.ofString());

    assertThat(jetty.app.effects()).isEqualTo(1);
    assertReplayOfTheFirstExecution(response);
    assertThat(response.attempts()).isEqualTo(2);
    assertOneKeyOnEveryAttempt(response);
    assertThat(retryCauses()).singleElement().asString().startsWith("HttpTimeoutException");
  }

  /**
   * The first attempt times out while the servlet is still running (blocked on a latch); the retry
   * meets the real filter's 409 idempotency_request_in_flight with Retry-After, waits it out, and
   * gets the replay. The latch opens during that wait, and the wait ends once the first execution's
   * response was stored and sent (to nobody): ordered by events, not by timing.
   */
  @Test
  void theInFlightConflictIsWaitedOutAndEndsInTheReplay() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    jetty.app.gate = gate;
    Sleeper sleeper =
        d -> {
          time.sleep(d);
          if (!proxy.sawUpstreamStatus(409)) {
            // the first execution holds the key before the retry goes out
            assertThat(jetty.app.entered.await(10, TimeUnit.SECONDS)).isTrue();
          } else if (gate.getCount() > 0) {
            gate.countDown();
            assertThat(proxy.exchange(0).awaitUpstream(Duration.ofSeconds(10))).isTrue();
          }
        };

    IdempotentResponse<String> response =
        client(
                policy()
                    .environment(environment().withSleeper(sleeper))
                    .maxAttempts(5)
                    .attemptTimeout(Duration.ofSeconds(1))
                    .build())
            .send(confirm("{\"amount\":100}"), BodyHandlers.ofString());

    assertThat(jetty.app.effects()).isEqualTo(1);
    assertReplayOfTheFirstExecution(response);
    assertThat(response.attempts()).isEqualTo(3);
    assertOneKeyOnEveryAttempt(response);
    ProxyExchange conflict = proxy.exchange(1);
    assertThat(conflict.upstreamStatus()).isEqualTo(409);
    assertThat(conflict.upstreamBody()).contains("\"code\":\"idempotency_request_in_flight\"");
    long retryAfter = Long.parseLong(conflict.upstreamHeader("Retry-After"));
    assertThat(retryAfter).isBetween(1L, 5L);
    assertThat(retryCauses())
        .hasSize(2)
        .element(1)
        .isEqualTo("HTTP 409 (idempotency_request_in_flight)");
    assertThat(time.sleeps().get(1)).isGreaterThanOrEqualTo(Duration.ofSeconds(retryAfter));
  }

  /**
   * Same key, another body: the real filter's 409 idempotency_key_reused is returned at once, never
   * retried.
   */
  @Test
  void aPayloadMismatchIsANonRetried409() throws Exception {
    OperationKey key = OperationKey.forEvent("order-confirm", "4711");
    RetryingHttpClient client = client(policy().build());

    IdempotentResponse<String> first =
        client.call(confirm("{\"amount\":100}")).idempotencyKey(key).send(BodyHandlers.ofString());
    IdempotentResponse<String> reused =
        client.call(confirm("{\"amount\":250}")).idempotencyKey(key).send(BodyHandlers.ofString());

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.replayed()).isFalse();
    assertThat(reused.statusCode()).isEqualTo(409);
    assertThat(reused.replayed()).isFalse();
    assertThat(reused.attempts()).isEqualTo(1);
    assertThat(reused.headers().firstValue("Content-Type"))
        .hasValueSatisfying(ct -> assertThat(ct).startsWith("application/problem+json"));
    assertThat(reused.body())
        .contains("\"code\":\"idempotency_key_reused\"")
        .contains("\"retryable\":false");
    assertThat(jetty.app.effects()).isEqualTo(1);
    assertThat(proxy.exchanges())
        .hasSize(2)
        .allSatisfy(e -> assertThat(e.idempotencyKeys()).containsExactly("order-confirm-4711"));
    assertThat(retryCauses()).isEmpty();
    assertThat(time.sleeps()).isEmpty();
  }
}
