package dev.idempotency.client.httpclient5;

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
import dev.idempotency.testing.Fault;
import dev.idempotency.testing.ProxiedConfirmApp;
import dev.idempotency.testing.ProxyExchange;
import dev.idempotency.testing.RecordingLogger;
import dev.idempotency.testing.ScriptedFaults;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpPut;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The exec-chain handler against the real {@code IdempotencyFilter} in Jetty, through the proxy
 * that loses responses after the server processed them: every logical call has one side effect, and
 * ends with the replay of that one execution. Waits between attempts are recorded, not slept;
 * attempt timeouts are real.
 */
class HttpClient5FilterEndToEndTest {
  static final String PATH = "/orders/4711/confirm";

  final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  final List<RetryEvent> events = new CopyOnWriteArrayList<>();
  final RecordingLogger log = new RecordingLogger();
  ProxiedConfirmApp server;
  CloseableHttpClient http;

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
    try (ProxiedConfirmApp s = server) {
      if (http != null) {
        http.close(CloseMode.IMMEDIATE);
      }
    }
  }

  RetryEnvironment environment(Sleeper sleeper) {
    return RetryEnvironment.system().withSleeper(sleeper).withLogger(log);
  }

  RetryPolicy.Builder policy() {
    return RetryPolicy.builder().environment(environment(sleeps::add)).listener(events::add);
  }

  CloseableHttpClient client(RetryPolicy policy) {
    http = IdempotentRetryExec.of(policy).installOn(HttpClients.custom()).build();
    return http;
  }

  HttpPost confirm(String json) {
    HttpPost post = new HttpPost(server.uri(PATH));
    post.setHeader("Authorization", "Bearer alice");
    post.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
    return post;
  }

  Exchange send(CloseableHttpClient client, HttpPost request, HttpClientContext context)
      throws Exception {
    return client.execute(request, context, Exchange::of);
  }

  /** Attempts at the wire equal the handler's, each with the one key, once; returns the key. */
  String assertOneKeyOnEveryAttempt(int attempts) {
    List<ProxyExchange> wire = server.proxy.exchanges();
    assertThat(wire).hasSize(attempts);
    String key = wire.get(0).idempotencyKeys().get(0);
    assertThat(wire).allSatisfy(e -> assertThat(e.idempotencyKeys()).containsExactly(key));
    return key;
  }

  void assertReplayOfTheFirstExecution(Exchange response) {
    ProxyExchange first = server.proxy.exchange(0);
    assertThat(first.upstreamStatus()).isEqualTo(201);
    assertThat(response.code()).isEqualTo(201);
    assertThat(response.replayed()).isEqualTo("true");
    assertThat(response.body())
        .isEqualTo(first.upstreamBody())
        .isEqualTo("{\"confirmation\":1,\"user\":\"alice\",\"request\":{\"amount\":100}}");
  }

  @Test
  void aPostRetriedThroughDroppedResponsesRunsOnceAndEndsWithTheReplay() throws Exception {
    server.proxy.plan(
        new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD_THEN_RESET, Fault.FORWARD));

    Exchange response =
        send(client(policy().build()), confirm("{\"amount\":100}"), HttpClientContext.create());

    assertThat(server.effects()).isEqualTo(1);
    assertReplayOfTheFirstExecution(response);
    String key = assertOneKeyOnEveryAttempt(3);
    assertThat(events).filteredOn(RetryEvent.RetryScheduled.class::isInstance).hasSize(2);
    assertThat(log.messages(Level.INFO))
        .hasSize(2)
        .allSatisfy(m -> assertThat(m).contains("[Idempotency-Key " + key + "]", "next attempt in"))
        .anySatisfy(
            m -> assertThat(m).contains("attempt 1 of 3 failed with NoHttpResponseException"))
        .anySatisfy(m -> assertThat(m).contains("attempt 2 of 3 failed with SocketException"));
  }

  /** A body cut off halfway is a failed attempt; the key is the caller's, from the context. */
  @Test
  void aTruncatedBodyIsRetriedWithTheCallersEventKey() throws Exception {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_TRUNCATE, Fault.FORWARD));
    HttpClientContext context = HttpClientContext.create();
    context.setAttribute(
        IdempotentRetryExec.KEY_ATTRIBUTE, OperationKey.forEvent("order-confirm", "4711"));

    Exchange response = send(client(policy().build()), confirm("{\"amount\":100}"), context);

    assertThat(server.effects()).isEqualTo(1);
    assertReplayOfTheFirstExecution(response);
    assertThat(assertOneKeyOnEveryAttempt(2)).isEqualTo("order-confirm-4711");
  }

  /** A response held back past the 1 s attempt timeout is retried into the replay. */
  @Test
  void aResponseStalledPastTheAttemptTimeoutIsRetriedIntoTheReplay() throws Exception {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_STALL, Fault.FORWARD));
    Sleeper afterTheFirstResponseIsStored =
        d -> {
          sleeps.add(d);
          assertThat(server.proxy.exchange(0).awaitUpstream(Duration.ofSeconds(10))).isTrue();
        };
    RetryPolicy policy =
        policy()
            .attemptTimeout(Duration.ofSeconds(1))
            .environment(environment(afterTheFirstResponseIsStored))
            .build();

    Exchange response =
        send(client(policy), confirm("{\"amount\":100}"), HttpClientContext.create());

    assertThat(server.effects()).isEqualTo(1);
    assertReplayOfTheFirstExecution(response);
    assertOneKeyOnEveryAttempt(2);
  }

  @Test
  void retryAfterIsHonouredAndTheLostResponseIsReplayed() throws Exception {
    server
        .proxy
        .retryAfterSeconds(2, 1)
        .plan(
            new ScriptedFaults(
                Fault.ANSWER_503, Fault.FORWARD_THEN_DROP, Fault.ANSWER_429, Fault.FORWARD));

    Exchange response =
        send(
            client(policy().maxAttempts(5).build()),
            confirm("{\"amount\":100}"),
            HttpClientContext.create());

    assertThat(response.code()).isEqualTo(201);
    assertThat(response.replayed()).isEqualTo("true");
    assertThat(server.effects()).isEqualTo(1);
    assertThat(server.jetty.requests).hasValue(2);
    assertOneKeyOnEveryAttempt(4);
    assertThat(sleeps).hasSize(3);
    assertThat(sleeps.get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(sleeps.get(2)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  /**
   * A PUT gets no key and is not idempotent by this policy: its lost response is not re-sent, by
   * the handler or by the client's own strategy, which the handler replaces. One request at the
   * wire.
   */
  @Test
  void anUnkeyedPutIsNotResentAfterALostResponse() {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));
    HttpPut put = new HttpPut(server.uri(PATH));
    put.setHeader("Authorization", "Bearer alice");
    put.setEntity(new StringEntity("{}", ContentType.APPLICATION_JSON));
    CloseableHttpClient client = client(policy().build());

    RetriesExhaustedException stop =
        catchThrowableOfType(
            RetriesExhaustedException.class, () -> client.execute(put, Exchange::of));

    assertThat(stop.reason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(stop.getMessage()).contains("without an idempotency key");
    assertThat(server.proxy.exchanges())
        .singleElement()
        .satisfies(e -> assertThat(e.idempotencyKeys()).isEmpty());
  }

  @Test
  void theBudgetIsSharedAcrossTheCallsOfOneClient() {
    server.proxy.plan(new ScriptedFaults(Fault.ANSWER_503));
    CloseableHttpClient client =
        client(policy().budget(TokenBucketRetryBudget.builder().capacity(14).build()).build());

    RetriesExhaustedException first =
        catchThrowableOfType(
            RetriesExhaustedException.class,
            () -> client.execute(confirm("{\"amount\":1}"), Exchange::of));
    RetriesExhaustedException second =
        catchThrowableOfType(
            RetriesExhaustedException.class,
            () -> client.execute(confirm("{\"amount\":2}"), Exchange::of));

    assertThat(first.reason()).isEqualTo(StopReason.BUDGET);
    assertThat(first.attempts()).isEqualTo(2);
    assertThat(second.reason()).isEqualTo(StopReason.BUDGET);
    assertThat(second.attempts()).isEqualTo(1);
    assertThat(server.proxy.exchanges()).hasSize(3);
    assertThat(server.jetty.requests).hasValue(0);
  }

  /** One deadline over every attempt: all stall, the 2 s deadline ends the call after one. */
  @Test
  void oneDeadlineBoundsEveryAttempt() {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_STALL));
    CloseableHttpClient client = client(policy().deadline(Duration.ofSeconds(2)).build());

    RetriesExhaustedException stop =
        catchThrowableOfType(
            RetriesExhaustedException.class,
            () -> client.execute(confirm("{\"amount\":100}"), Exchange::of));

    assertThat(stop.reason()).isEqualTo(StopReason.DEADLINE);
    assertThat(stop.attempts()).isEqualTo(1);
    assertThat(server.effects()).isEqualTo(1);
  }
}
