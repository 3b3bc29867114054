package dev.idempotency.client.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.Sleeper;
import dev.idempotency.client.StopReason;
import dev.idempotency.client.TokenBucketRetryBudget;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.CountingConfirmApp;
import dev.idempotency.testing.Fault;
import dev.idempotency.testing.FaultInjectingProxy;
import dev.idempotency.testing.ProxiedConfirmApp;
import dev.idempotency.testing.ProxyExchange;
import dev.idempotency.testing.RecordingLogger;
import dev.idempotency.testing.ScriptedFaults;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The interceptor against the real {@code IdempotencyFilter} in Jetty, through the proxy that loses
 * responses after the server processed them: every logical call has one side effect, and ends with
 * the replay of that one execution. Waits between attempts are recorded, not slept; attempt
 * timeouts are real.
 */
class OkHttpFilterEndToEndTest {
  static final String PATH = "/orders/4711/confirm";

  final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  final List<RetryEvent> events = new CopyOnWriteArrayList<>();
  final RecordingLogger log = new RecordingLogger();
  ProxiedConfirmApp server;
  CountingConfirmApp jetty;
  FaultInjectingProxy proxy;
  OkHttpClient http;

  @BeforeEach
  void start() throws Exception {
    IdempotencyEngine engine =
        IdempotencyEngine.builder(new InMemoryKeyStore())
            .config(IdempotencyConfig.builder().lease(Duration.ofSeconds(5)).build())
            .build();
    server =
        ProxiedConfirmApp.start(
            new IdempotencyFilter(IdempotencyHttp.builder(engine).build()), engine);
    jetty = server.jetty;
    proxy = server.proxy;
  }

  @AfterEach
  void stop() throws Exception {
    try (ProxiedConfirmApp s = server) {
      OkHttpClients.shutDown(http);
    }
  }

  RetryEnvironment environment(Sleeper sleeper) {
    return RetryEnvironment.system().withSleeper(sleeper).withLogger(log);
  }

  RetryPolicy.Builder policy() {
    return RetryPolicy.builder().environment(environment(sleeps::add)).listener(events::add);
  }

  OkHttpClient client(RetryPolicy policy) {
    http =
        new OkHttpClient.Builder()
            .addInterceptor(IdempotencyInterceptor.builder().policy(policy).build())
            .build();
    return http;
  }

  Request.Builder confirm(String json) {
    return new Request.Builder()
        .url(proxy.uri(PATH).toString())
        .header("Authorization", "Bearer alice")
        .post(RequestBody.create(json, MediaType.get("application/json")));
  }

  /** Attempts at the wire equal the interceptor's, and each carried the one key, once. */
  void assertOneKeyOnEveryAttempt(String key, int attempts) {
    assertThat(proxy.exchanges())
        .hasSize(attempts)
        .allSatisfy(e -> assertThat(e.idempotencyKeys()).as("%s", e).containsExactly(key));
  }

  void assertReplayOfTheFirstExecution(Response response, String body) {
    ProxyExchange first = proxy.exchange(0);
    assertThat(first.upstreamStatus()).isEqualTo(201);
    assertThat(response.code()).isEqualTo(201);
    assertThat(response.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(body)
        .isEqualTo(first.upstreamBody())
        .isEqualTo("{\"confirmation\":1,\"user\":\"alice\",\"request\":{\"amount\":100}}");
  }

  List<RetryEvent.RetryScheduled> retries() {
    return events.stream()
        .filter(RetryEvent.RetryScheduled.class::isInstance)
        .map(RetryEvent.RetryScheduled.class::cast)
        .toList();
  }

  @Test
  void aPostRetriedThroughDroppedResponsesRunsOnceAndEndsWithTheReplay() throws Exception {
    proxy.plan(
        new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD_THEN_RESET, Fault.FORWARD));

    try (Response response =
        client(policy().build()).newCall(confirm("{\"amount\":100}").build()).execute()) {
      String body = response.body().string();

      assertThat(jetty.app.effects()).isEqualTo(1);
      assertReplayOfTheFirstExecution(response, body);
      String key = response.request().header("Idempotency-Key");
      assertThat(key).isNotBlank();
      assertOneKeyOnEveryAttempt(key, 3);
      assertThat(retries()).extracting(RetryEvent.RetryScheduled::attempt).containsExactly(1, 2);
      // every retry is logged with its attempt, its cause and the next wait
      assertThat(log.messages(Level.INFO))
          .hasSize(2)
          .allSatisfy(
              m -> assertThat(m).contains("[Idempotency-Key " + key + "]", "next attempt in"))
          .anySatisfy(m -> assertThat(m).contains("attempt 1 of 3 failed with IOException"))
          .anySatisfy(m -> assertThat(m).contains("attempt 2 of 3 failed with SocketException"));
    }
  }

  /** The body cut off halfway is a failed attempt; the caller's event-derived key, from a tag. */
  @Test
  void aTruncatedBodyIsRetriedWithTheTaggedEventKey() throws Exception {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_TRUNCATE, Fault.FORWARD));
    Request request =
        confirm("{\"amount\":100}")
            .tag(OperationKey.class, OperationKey.forEvent("order-confirm", "4711"))
            .build();

    try (Response response = client(policy().build()).newCall(request).execute()) {
      assertThat(jetty.app.effects()).isEqualTo(1);
      assertReplayOfTheFirstExecution(response, response.body().string());
      assertOneKeyOnEveryAttempt("order-confirm-4711", 2);
    }
  }

  /**
   * The response held back past the 1 s attempt timeout (a real read timeout) is retried; the retry
   * goes out once the first execution's response reached the proxy, so it gets the replay.
   */
  @Test
  void aResponseStalledPastTheAttemptTimeoutIsRetriedIntoTheReplay() throws Exception {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_STALL, Fault.FORWARD));
    Sleeper afterTheFirstResponseIsStored =
        d -> {
          sleeps.add(d);
          assertThat(proxy.exchange(0).awaitUpstream(Duration.ofSeconds(10))).isTrue();
        };
    RetryPolicy policy =
        policy()
            .attemptTimeout(Duration.ofSeconds(1))
            .environment(environment(afterTheFirstResponseIsStored))
            .build();

    try (Response response =
        client(policy).newCall(confirm("{\"amount\":100}").build()).execute()) {
      assertThat(jetty.app.effects()).isEqualTo(1);
      assertReplayOfTheFirstExecution(response, response.body().string());
      assertOneKeyOnEveryAttempt(response.request().header("Idempotency-Key"), 2);
      assertThat(retries())
          .singleElement()
          .satisfies(r -> assertThat(r.cause()).containsAnyOf("timeout", "timed out"));
    }
  }

  @Test
  void retryAfterIsHonouredAndTheLostResponseIsReplayed() throws Exception {
    proxy
        .retryAfterSeconds(2, 1)
        .plan(
            new ScriptedFaults(
                Fault.ANSWER_503, Fault.FORWARD_THEN_DROP, Fault.ANSWER_429, Fault.FORWARD));

    try (Response response =
        client(policy().maxAttempts(5).build())
            .newCall(confirm("{\"amount\":100}").build())
            .execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(response.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(jetty.app.effects()).isEqualTo(1);
      assertThat(jetty.requests).hasValue(2);
      assertOneKeyOnEveryAttempt(response.request().header("Idempotency-Key"), 4);
      assertThat(sleeps).hasSize(3);
      assertThat(sleeps.get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
      assertThat(sleeps.get(2)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }
  }

  /**
   * A PUT has no key (only POST and PATCH get one) and is not idempotent by default: its lost
   * response is not re-sent, by the interceptor or by OkHttp (whose own retry the interceptor
   * switches off): one request at the wire.
   */
  @Test
  void anUnkeyedUnsafeRequestIsNotResentAfterALostResponse() {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));
    Request put =
        new Request.Builder()
            .url(proxy.uri(PATH).toString())
            .header("Authorization", "Bearer alice")
            .put(RequestBody.create("{}", MediaType.get("application/json")))
            .build();

    RetriesExhaustedException stop =
        catchThrowableOfType(
            RetriesExhaustedException.class, () -> client(policy().build()).newCall(put).execute());

    assertThat(stop.reason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(stop.getMessage()).contains("without an idempotency key");
    assertThat(proxy.exchanges())
        .singleElement()
        .satisfies(e -> assertThat(e.idempotencyKeys()).isEmpty());
  }

  /** One budget for every call of the client: the first call's retry empties it for the second. */
  @Test
  void theBudgetIsSharedAcrossTheCallsOfOneClient() {
    proxy.plan(new ScriptedFaults(Fault.ANSWER_503));
    OkHttpClient client =
        client(policy().budget(TokenBucketRetryBudget.builder().capacity(14).build()).build());

    RetriesExhaustedException first =
        catchThrowableOfType(
            RetriesExhaustedException.class,
            () -> client.newCall(confirm("{\"amount\":1}").build()).execute());
    RetriesExhaustedException second =
        catchThrowableOfType(
            RetriesExhaustedException.class,
            () -> client.newCall(confirm("{\"amount\":2}").build()).execute());

    assertThat(first.reason()).isEqualTo(StopReason.BUDGET);
    assertThat(first.attempts()).isEqualTo(2);
    assertThat(second.reason()).isEqualTo(StopReason.BUDGET);
    assertThat(second.attempts()).isEqualTo(1);
    assertThat(second.lastResponse(Response.class))
        .hasValueSatisfying(r -> assertThat(r.code()).isEqualTo(503));
    assertThat(proxy.exchanges()).hasSize(3);
    assertThat(jetty.requests).hasValue(0);
  }

  /**
   * The deadline covers the whole exchange: with the client's own timeouts at a minute, a call
   * whose every attempt stalls ends at the 2 s deadline, with DEADLINE, not after three stalls.
   */
  @Test
  void oneDeadlineBoundsEveryAttempt() throws IOException {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_STALL));
    http =
        new OkHttpClient.Builder()
            .readTimeout(1, TimeUnit.MINUTES)
            .addInterceptor(
                IdempotencyInterceptor.builder()
                    .policy(policy().deadline(Duration.ofSeconds(2)).build())
                    .build())
            .build();

    RetriesExhaustedException stop =
        catchThrowableOfType(
            RetriesExhaustedException.class,
            () -> http.newCall(confirm("{\"amount\":100}").build()).execute());

    assertThat(stop.reason()).isEqualTo(StopReason.DEADLINE);
    assertThat(stop.attempts()).isEqualTo(1);
    assertThat(jetty.app.effects()).isEqualTo(1);
  }
}
