package dev.idempotency.client.functional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.client.http.RetryingHttpClient;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.store.jdbc.Dialect;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.CountingConfirmApp;
import dev.idempotency.testing.FaultInjectingProxy;
import dev.idempotency.testing.LoopbackPorts;
import dev.idempotency.testing.RecordingLogger;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fail closed, end to end: the JDBC store points at an H2 TCP server on a loopback port nothing
 * listens on, so the real filter answers every attempt 503 idempotency_store_unavailable with
 * Retry-After: 5. The client retries after each Retry-After, then gives up; the servlet never ran.
 */
class StoreUnavailableEndToEndTest {
  private final FakeTime time = new FakeTime();
  private final List<RetryEvent> events = new CopyOnWriteArrayList<>();
  private IdempotencyEngine engine;
  private CountingConfirmApp jetty;
  private FaultInjectingProxy proxy;

  @BeforeEach
  void start() throws Exception {
    JdbcDataSource unreachable = new JdbcDataSource();
    unreachable.setURL("jdbc:h2:tcp://127.0.0.1:" + LoopbackPorts.closed() + "/mem:unreachable");
    engine =
        IdempotencyEngine.builder(
                JdbcKeyStore.builder(unreachable).dialect(Dialect.H2).validateSchema(false).build())
            .build();
    jetty =
        CountingConfirmApp.start(new IdempotencyFilter(IdempotencyHttp.builder(engine).build()));
    proxy = FaultInjectingProxy.start(jetty.port());
  }

  /**
   * Closes the proxy, then Jetty, then the engine, each even if one before it failed; one never
   * started is null.
   */
  @AfterEach
  void stop() throws Exception {
    try (IdempotencyEngine e = engine;
        CountingConfirmApp j = jetty;
        FaultInjectingProxy p = proxy) {
      // try-with-resources closes in reverse order, skips null resources and keeps every failure
    }
  }

  @Test
  void storeUnavailableIsRetriedThenGivesUpAndTheServletNeverRan() {
    RetryPolicy policy =
        RetryPolicy.builder()
            .environment(time.environment().withLogger(new RecordingLogger()))
            .listener(events::add)
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(proxy.uri(FilterEndToEndContract.PATH))
            .header("Authorization", "Bearer alice")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
            .build();

    RetriesExhaustedException e =
        catchThrowableOfType(
            () ->
                RetryingHttpClient.builder(FilterEndToEndContract.HTTP)
                    .policy(policy)
                    .build()
                    .send(request, BodyHandlers.ofString()),
            RetriesExhaustedException.class);

    assertThat(e).isNotNull();
    // 3 attempts with a 5 s Retry-After between them fit the 30 s deadline: the attempts run out
    // first
    assertThat(e.reason()).isEqualTo(StopReason.ATTEMPTS);
    assertThat(e.attempts()).isEqualTo(3);
    assertThat(jetty.app.effects()).isZero();
    assertThat(jetty.requests).hasValue(3);
    assertThat(proxy.exchanges())
        .hasSize(3)
        .allSatisfy(
            x -> {
              assertThat(x.upstreamStatus()).isEqualTo(503);
              assertThat(x.upstreamHeader("Retry-After")).isEqualTo("5");
              assertThat(x.upstreamBody())
                  .contains("\"code\":\"idempotency_store_unavailable\"")
                  .contains("\"retryable\":true");
            });
    String key = proxy.exchange(0).idempotencyKeys().get(0);
    assertThat(proxy.exchanges())
        .allSatisfy(x -> assertThat(x.idempotencyKeys()).containsExactly(key));
    @SuppressWarnings("unchecked")
    HttpResponse<String> last = e.lastResponse(HttpResponse.class).orElseThrow();
    assertThat(last.statusCode()).isEqualTo(503);
    assertThat(last.body()).contains("idempotency_store_unavailable");
    assertThat(time.sleeps())
        .hasSize(2)
        .allSatisfy(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofSeconds(5)));
    assertThat(events)
        .filteredOn(RetryEvent.RetryScheduled.class::isInstance)
        .hasSize(2)
        .allSatisfy(
            ev ->
                assertThat(((RetryEvent.RetryScheduled) ev).cause())
                    .isEqualTo("HTTP 503 (idempotency_store_unavailable)"));
  }
}
