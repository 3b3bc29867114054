package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.client.TokenBucketRetryBudget;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.Fault;
import dev.idempotency.testing.ProxiedConfirmApp;
import dev.idempotency.testing.ProxyExchange;
import dev.idempotency.testing.RecordingLogger;
import dev.idempotency.testing.ScriptedFaults;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * {@link IdempotentRestClient} in a {@code RestClient} over the JDK client, against the real {@code
 * IdempotencyFilter} in Jetty, through the proxy that loses responses after the server processed
 * them: every logical call has one side effect and ends with the replay of that one execution.
 * Waits between attempts are recorded, not slept.
 */
class RestClientEndToEndTest {
  static final String PATH = "/orders/4711/confirm";

  final List<Duration> sleeps = new CopyOnWriteArrayList<>();
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
        .environment(
            RetryEnvironment.system().withSleeper(sleeps::add).withLogger(new RecordingLogger()));
  }

  RestClient client(RetryPolicy policy) {
    JdkClientHttpRequestFactory factory =
        new JdkClientHttpRequestFactory(HttpClient.newHttpClient());
    factory.setReadTimeout(policy.attemptTimeout());
    return RestClient.builder()
        .requestFactory(factory)
        .requestInterceptor(IdempotentRestClient.builder().policy(policy).build())
        .build();
  }

  RestClient.RequestBodySpec confirm(RestClient client) {
    return client
        .post()
        .uri(server.uri(PATH))
        .header("Authorization", "Bearer alice")
        .contentType(MediaType.APPLICATION_JSON);
  }

  void assertOneKeyOnEveryAttempt(String key, int attempts) {
    assertThat(server.proxy.exchanges())
        .hasSize(attempts)
        .allSatisfy(e -> assertThat(e.idempotencyKeys()).as("%s", e).containsExactly(key));
  }

  void assertReplayOfTheFirstExecution(ResponseEntity<String> response) {
    ProxyExchange first = server.proxy.exchange(0);
    assertThat(first.upstreamStatus()).isEqualTo(201);
    assertThat(server.effects()).isEqualTo(1);
    assertThat(response.getStatusCode().value()).isEqualTo(201);
    assertThat(response.getHeaders().getFirst("Idempotent-Replayed")).isEqualTo("true");
    assertThat(response.getBody())
        .isEqualTo(first.upstreamBody())
        .isEqualTo("{\"confirmation\":1,\"user\":\"alice\",\"request\":{\"amount\":100}}");
  }

  @Test
  void aPostRetriedThroughLostResponsesRunsOnceAndEndsWithTheReplay() {
    server.proxy.plan(
        new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD_THEN_RESET, Fault.FORWARD));

    ResponseEntity<String> response =
        confirm(client(policy().build()))
            .body("{\"amount\":100}")
            .retrieve()
            .toEntity(String.class);

    assertReplayOfTheFirstExecution(response);
    String key = server.proxy.exchange(0).idempotencyKeys().get(0);
    assertThat(key).isNotBlank();
    assertOneKeyOnEveryAttempt(key, 3);
    assertThat(sleeps).hasSize(2);
  }

  @Test
  void aTruncatedBodyIsRetriedWithTheCallersEventKeyFromTheAttribute() {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_TRUNCATE, Fault.FORWARD));

    ResponseEntity<String> response =
        confirm(client(policy().build()))
            .attribute(
                IdempotentRestClient.KEY_ATTRIBUTE, OperationKey.forEvent("order-confirm", "4711"))
            .body("{\"amount\":100}")
            .retrieve()
            .toEntity(String.class);

    assertReplayOfTheFirstExecution(response);
    assertOneKeyOnEveryAttempt("order-confirm-4711", 2);
  }

  @Test
  void aKeyHeaderTheCallerSetIsKeptOnEveryAttempt() {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    ResponseEntity<String> response =
        confirm(client(policy().build()))
            .header("Idempotency-Key", "callers-own-key")
            .body("{\"amount\":100}")
            .retrieve()
            .toEntity(String.class);

    assertReplayOfTheFirstExecution(response);
    assertOneKeyOnEveryAttempt("callers-own-key", 2);
  }

  @Test
  void retryAfterIsHonouredAndTheLostResponseIsReplayed() {
    server
        .proxy
        .retryAfterSeconds(2, 1)
        .plan(
            new ScriptedFaults(
                Fault.ANSWER_503, Fault.FORWARD_THEN_DROP, Fault.ANSWER_429, Fault.FORWARD));

    ResponseEntity<String> response =
        confirm(client(policy().maxAttempts(5).build()))
            .body("{\"amount\":100}")
            .retrieve()
            .toEntity(String.class);

    assertThat(response.getStatusCode().value()).isEqualTo(201);
    assertThat(response.getHeaders().getFirst("Idempotent-Replayed")).isEqualTo("true");
    assertThat(server.effects()).isEqualTo(1);
    assertThat(server.jetty.requests).hasValue(2);
    assertThat(sleeps).hasSize(3);
    assertThat(sleeps.get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(sleeps.get(2)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  /** A PUT gets no key and is not idempotent by default: its lost response is not re-sent. */
  @Test
  void anUnkeyedUnsafeRequestIsNotResentAfterALostResponse() {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    Throwable failure =
        catchThrowable(
            () ->
                client(policy().build())
                    .put()
                    .uri(server.uri(PATH))
                    .header("Authorization", "Bearer alice")
                    .contentType(MediaType.APPLICATION_JSON)
                    .body("{}")
                    .retrieve()
                    .toBodilessEntity());

    assertThat(failure)
        .isInstanceOf(ResourceAccessException.class)
        .cause()
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> {
              assertThat(stop.reason()).isEqualTo(StopReason.NOT_RETRYABLE);
              assertThat(stop.getMessage()).contains("without an idempotency key");
            });
    assertThat(server.proxy.exchanges())
        .singleElement()
        .satisfies(e -> assertThat(e.idempotencyKeys()).isEmpty());
  }

  /** One budget for every call of the client: the first call's retry empties it for the second. */
  @Test
  void theBudgetIsSharedAcrossTheCallsOfOneClient() {
    server.proxy.plan(new ScriptedFaults(Fault.ANSWER_503));
    RestClient client =
        client(policy().budget(TokenBucketRetryBudget.builder().capacity(14).build()).build());

    Throwable first =
        catchThrowable(() -> confirm(client).body("{\"amount\":1}").retrieve().toBodilessEntity());
    Throwable second =
        catchThrowable(() -> confirm(client).body("{\"amount\":2}").retrieve().toBodilessEntity());

    assertThat(first.getCause())
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> {
              assertThat(stop.reason()).isEqualTo(StopReason.BUDGET);
              assertThat(stop.attempts()).isEqualTo(2);
            });
    assertThat(second.getCause())
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> {
              assertThat(stop.reason()).isEqualTo(StopReason.BUDGET);
              assertThat(stop.attempts()).isEqualTo(1);
            });
    assertThat(server.proxy.exchanges()).hasSize(3);
    assertThat(server.jetty.requests).hasValue(0);
  }
}
