package dev.idempotency.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.spi.KeyStore;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The concurrency gate, end to end: N identical concurrent POSTs with one key against the filter in
 * Jetty produce exactly one side effect; every other request gets the in-flight 409 or the
 * byte-identical replay. One subclass per store, each a few lines.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConcurrencyGateContract {
  private static final String BODY = "{\"amount\":1000,\"currency\":\"EUR\"}";

  private IdempotencyEngine engine;
  private FilteredTestApp server;
  private ExecutorService clients;

  /** The store under test; called once per class. */
  protected abstract KeyStore newStore() throws Exception;

  /** Releases what {@link #newStore()} opened. */
  protected void closeStore() throws Exception {}

  @BeforeAll
  void startServer() throws Exception {
    engine = IdempotencyEngine.builder(newStore()).build();
    // the gate holds the winner inside the application while the duplicates arrive: the stepped
    // lifecycle, whose duplicates get 409 at once (OneTransactionOverHttpContract covers the
    // duplicates that wait on one transaction's lock)
    server =
        new FilteredTestApp(
            IdempotencyHttp.builder(engine)
                .endpoint(
                    EndpointRule.of(KeyRequirement.REQUIRED, "/**", "POST", "PATCH").stepped())
                .build());
    clients = Executors.newFixedThreadPool(64);
  }

  @AfterAll
  void stopServer() throws Exception {
    // null when newStore() skipped the class (a database not configured locally): a skip must stay
    // a skip
    if (clients != null) {
      shutDown(clients);
    }
    if (server != null) {
      server.close();
    }
    if (engine != null) {
      engine.close();
    }
    closeStore();
  }

  /**
   * Stops {@code pool} and waits for its threads to end, so that none outlives the test that
   * started it.
   */
  private static void shutDown(ExecutorService pool) throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).as("the pool's threads ended").isTrue();
  }

  private List<HttpResponse<byte[]>> fire(int n, String path, String key, CountDownLatch answered)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      futures.add(
          clients.submit(
              () -> {
                start.await();
                try {
                  return server.post(path, key, BODY);
                } finally {
                  answered.countDown();
                }
              }));
    }
    start.countDown();
    return futures.stream()
        .map(
            f -> {
              try {
                return f.get(60, TimeUnit.SECONDS);
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            })
        .toList();
  }

  private static boolean isInFlightConflict(HttpResponse<byte[]> r) {
    String body = new String(r.body(), StandardCharsets.UTF_8);
    return r.statusCode() == 409
        && body.contains("\"code\":\"idempotency_request_in_flight\"")
        && r.headers().firstValue("Retry-After").isPresent();
  }

  /**
   * The winner is held inside the servlet until all others answered: exactly one runs, N-1 get the
   * 409.
   */
  @ParameterizedTest(name = "N = {0}")
  @ValueSource(ints = {2, 8, 64})
  void gate_heldWinner_exactlyOneSideEffect(int n) throws Exception {
    // given
    String path = "/payments/held-" + n;
    String key = UUID.randomUUID().toString();
    server.app.gate = new CountDownLatch(1);
    CountDownLatch othersAnswered = new CountDownLatch(n - 1);
    // when: N at once; the gate opens only once N-1 have their answer. The firing runs on a thread
    // of its own: it waits for N client threads, so it cannot take one of the N.
    ExecutorService firing = Executors.newSingleThreadExecutor();
    List<HttpResponse<byte[]>> responses;
    try {
      Future<List<HttpResponse<byte[]>>> all =
          firing.submit(() -> fire(n, path, key, othersAnswered));
      assertThat(othersAnswered.await(60, TimeUnit.SECONDS))
          .as("N-1 answers while the winner is held")
          .isTrue();
      server.app.gate.countDown();
      responses = all.get(60, TimeUnit.SECONDS);
    } finally {
      server.app.gate.countDown(); // a failed wait must not leave the winner held
      server.app.gate = null;
      shutDown(firing);
    }
    // then
    assertThat(server.app.effects("POST " + path)).as("side effects").isEqualTo(1);
    List<HttpResponse<byte[]>> winners =
        responses.stream().filter(r -> r.statusCode() == 201).toList();
    assertThat(winners).hasSize(1);
    assertThat(responses.stream().filter(ConcurrencyGateContract::isInFlightConflict))
        .hasSize(n - 1);
    HttpResponse<byte[]> replay = server.post(path, key, BODY);
    assertThat(replay.body()).isEqualTo(winners.get(0).body());
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(server.app.effects("POST " + path)).isEqualTo(1);
  }

  /**
   * Free-running: exactly one side effect; every other answer is the 409 or the byte-identical
   * replay.
   */
  @ParameterizedTest(name = "N = {0}")
  @ValueSource(ints = {2, 16, 64})
  void gate_freeRunning_exactlyOneSideEffect(int n) throws Exception {
    String path = "/payments/free-" + n;
    String key = UUID.randomUUID().toString();
    List<HttpResponse<byte[]>> responses = fire(n, path, key, new CountDownLatch(n));
    assertThat(server.app.effects("POST " + path)).as("side effects").isEqualTo(1);
    List<HttpResponse<byte[]>> originals =
        responses.stream()
            .filter(
                r ->
                    r.statusCode() == 201
                        && r.headers().firstValue("Idempotent-Replayed").isEmpty())
            .toList();
    assertThat(originals).hasSize(1);
    byte[] original = originals.get(0).body();
    for (HttpResponse<byte[]> r : responses) {
      if (r != originals.get(0)) {
        boolean replay =
            r.statusCode() == 201
                && r.headers().firstValue("Idempotent-Replayed").isPresent()
                && java.util.Arrays.equals(r.body(), original);
        assertThat(replay || isInFlightConflict(r))
            .as("%s %s", r.statusCode(), new String(r.body(), StandardCharsets.UTF_8))
            .isTrue();
      }
    }
  }
}
