package dev.idempotency.client.resilience4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.Backoff;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.client.TokenBucketRetryBudget;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.Fault;
import dev.idempotency.testing.JettyHarness;
import dev.idempotency.testing.ProxiedConfirmApp;
import dev.idempotency.testing.ScriptedFaults;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stack against the real {@code IdempotencyFilter} in Jetty, through the fault-injecting proxy:
 * lost responses end in one side effect and the replay; under an outage the breaker opens and the
 * budget stops the retries; when the server recovers, calls go through again. Waits are real
 * (Resilience4j sleeps), and short: the backoff is 10 ms to 50 ms.
 */
class ResilienceStackEndToEndTest {
  static final String PATH = "/orders/4711/confirm";

  final List<RetryEvent> events = new CopyOnWriteArrayList<>();
  ProxiedConfirmApp server;

  @BeforeEach
  void start() throws Exception {
    IdempotencyEngine engine =
        IdempotencyEngine.builder(new InMemoryKeyStore())
            .config(IdempotencyConfig.builder().lease(Duration.ofSeconds(5)).build())
            .build();
    server =
        ProxiedConfirmApp.start(
            new IdempotencyFilter(IdempotencyHttp.builder(engine).build()), engine);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  RetryPolicy.Builder policy() {
    return RetryPolicy.builder()
        .backoff(Backoff.fullJitter(Duration.ofMillis(10), Duration.ofMillis(50)))
        .listener(events::add);
  }

  static IdempotentResilience<HttpResponse<?>> stack(RetryPolicy policy, CircuitBreaker breaker) {
    return IdempotentResilience.stack(
        policy,
        ResponseReader.ofJdk(),
        breaker,
        RateLimiter.ofDefaults("orders"),
        Bulkhead.ofDefaults("orders"));
  }

  /** One attempt: the JDK client, the key as the header, the attempt's timeout. */
  HttpResponse<?> confirm(OperationKey key, Duration timeout) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(server.uri(PATH))
            .timeout(timeout)
            .header("Authorization", "Bearer alice")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"));
    if (key != null) {
      request.header("Idempotency-Key", key.value());
    }
    return JettyHarness.CLIENT.send(request.build(), BodyHandlers.ofString());
  }

  URI uri() {
    return server.uri(PATH);
  }

  @Test
  void aPostRetriedThroughDroppedResponsesRunsOnceAndEndsWithTheReplay() throws Exception {
    server.proxy.plan(
        new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD_THEN_RESET, Fault.FORWARD));

    HttpResponse<?> response =
        stack(policy().build(), CircuitBreaker.ofDefaults("orders"))
            .call("POST", uri(), null, this::confirm);

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(response.body()).isEqualTo(server.proxy.exchange(0).upstreamBody());
    assertThat(server.effects()).isEqualTo(1);
    String key = server.proxy.exchange(0).idempotencyKeys().get(0);
    assertThat(server.proxy.exchanges())
        .hasSize(3)
        .allSatisfy(e -> assertThat(e.idempotencyKeys()).containsExactly(key));
    assertThat(events)
        .filteredOn(RetryEvent.RetryScheduled.class::isInstance)
        .extracting(e -> ((RetryEvent.RetryScheduled) e).attempt())
        .containsExactly(1, 2);
  }

  /**
   * What the decorator prevents: a Resilience4j retry around a lambda that mints its key inside
   * sends a fresh key on every attempt, and the server, seeing two operations, runs both.
   */
  @Test
  void aKeyMintedInsideTheRetryRunsTheOperationTwice() throws Throwable {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));
    Retry naive =
        Retry.of(
            "naive",
            RetryConfig.custom()
                .maxAttempts(3)
                .waitDuration(Duration.ofMillis(10))
                .retryExceptions(java.io.IOException.class)
                .build());

    HttpResponse<?> response =
        Retry.decorateCheckedSupplier(
                naive,
                () -> confirm(OperationKey.of(UUID.randomUUID().toString()), Duration.ofSeconds(5)))
            .get();

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(server.proxy.exchanges()).hasSize(2);
    assertThat(server.proxy.exchange(0).idempotencyKeys())
        .doesNotContainAnyElementsOf(server.proxy.exchange(1).idempotencyKeys());
    assertThat(server.effects()).as("the duplicate").isEqualTo(2);
  }

  /**
   * The outage: every request is reset before it reaches the server. The budget (two transient
   * retries) pays the first call's two retries; the second call's first failure opens the breaker
   * (four failed attempts of four) and finds the budget empty; the third call is rejected by the
   * open breaker without touching the wire. The server recovers, the breaker's wait ends, and the
   * next call goes through and closes it.
   */
  @Test
  void underAnOutageTheBreakerOpensTheBudgetStopsRetriesAndCallsResumeOnRecovery()
      throws Exception {
    server.proxy.plan(new ScriptedFaults(Fault.RESET_WITHOUT_FORWARDING));
    CircuitBreaker breaker =
        CircuitBreaker.of(
            "orders",
            CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(4)
                .minimumNumberOfCalls(4)
                .failureRateThreshold(50)
                .waitDurationInOpenState(Duration.ofMillis(200))
                .permittedNumberOfCallsInHalfOpenState(1)
                .build());
    IdempotentResilience<HttpResponse<?>> stack =
        stack(
            policy().budget(TokenBucketRetryBudget.builder().capacity(28).build()).build(),
            breaker);

    RetriesExhaustedException first =
        catchThrowableOfType(
            RetriesExhaustedException.class, () -> stack.call("POST", uri(), null, this::confirm));
    RetriesExhaustedException second =
        catchThrowableOfType(
            RetriesExhaustedException.class, () -> stack.call("POST", uri(), null, this::confirm));
    CallNotPermittedException third =
        catchThrowableOfType(
            CallNotPermittedException.class, () -> stack.call("POST", uri(), null, this::confirm));

    assertThat(first.reason()).isEqualTo(StopReason.ATTEMPTS);
    assertThat(first.attempts()).isEqualTo(3);
    assertThat(second.reason()).isEqualTo(StopReason.BUDGET);
    assertThat(second.attempts()).isEqualTo(1);
    assertThat(third).isNotNull();
    assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThat(server.proxy.exchanges()).as("the open breaker kept the third call off").hasSize(4);
    assertThat(server.jetty.requests).hasValue(0);

    server.proxy.plan(new ScriptedFaults(Fault.FORWARD));
    HttpResponse<?> recovered = null;
    long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (recovered == null && System.nanoTime() < giveUp) {
      try {
        recovered = stack.call("POST", uri(), null, this::confirm);
      } catch (CallNotPermittedException stillOpen) {
        Thread.sleep(50);
      }
    }

    assertThat(recovered).isNotNull();
    assertThat(recovered.statusCode()).isEqualTo(201);
    assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
    assertThat(stack.call("POST", uri(), null, this::confirm).statusCode()).isEqualTo(201);
    assertThat(server.effects()).isEqualTo(2);
  }
}
