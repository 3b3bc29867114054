package dev.idempotency.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

/**
 * The whole contract through the starter, in the example app on Tomcat at a random port, called
 * over real HTTP with HTTP Basic as alice and bob. One application context per subclass (a database
 * each); every test uses keys of its own, so the tests share it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(SwitchableDataSource.Wrapping.class)
abstract class SpringBootContract {
  /** The client's own threads, shut down after the class (Java 17's HttpClient has no close). */
  private static final ExecutorService CLIENT_THREADS = Executors.newCachedThreadPool();

  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .executor(CLIENT_THREADS)
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @LocalServerPort int port;
  @Autowired PaymentsController controller;
  @Autowired HandlerGate gate;
  @Autowired DataSource dataSource;

  @AfterAll
  static void closeClient() throws InterruptedException {
    CLIENT_THREADS.shutdownNow();
    assertThat(CLIENT_THREADS.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  HttpResponse<byte[]> post(String user, String path, String key, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Authorization", basic(user))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  HttpResponse<String> get(String user, String path) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30));
    if (user != null) {
      b.header("Authorization", basic(user));
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String basic(String user) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8));
  }

  static String key() {
    return "k-" + UUID.randomUUID();
  }

  static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  @Test
  void aRetryGetsTheFirstResponseByteForByteAndTheControllerRunsOnce() throws Exception {
    String key = key();
    int before = controller.executions();
    HttpResponse<byte[]> first =
        post("alice", "/payments", key, "{\"orderId\":\"o1\",\"amountCents\":4200}");
    HttpResponse<byte[]> retry =
        post("alice", "/payments", key, "{\"orderId\":\"o1\",\"amountCents\":4200}");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(text(first)).contains("\"payer\":\"alice\"");
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(controller.executions() - before).isEqualTo(1);
  }

  @Test
  void aResponseBodyObjectIsReplayedToo() throws Exception {
    String key = key();
    HttpResponse<byte[]> first = post("alice", "/refunds", key, "{\"paymentId\":\"p1\"}");
    HttpResponse<byte[]> retry = post("alice", "/refunds", key, "{\"paymentId\":\"p1\"}");
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
  }

  @Test
  void anErrorRenderedByTheControllerAdviceIsStoredAndReplayed() throws Exception {
    String key = key();
    int before = controller.executions();
    HttpResponse<byte[]> first =
        post("alice", "/payments", key, "{\"orderId\":\"o2\",\"amountCents\":0}");
    HttpResponse<byte[]> retry =
        post("alice", "/payments", key, "{\"orderId\":\"o2\",\"amountCents\":0}");

    assertThat(first.statusCode()).isEqualTo(402);
    assertThat(text(first)).contains("card_declined");
    assertThat(retry.statusCode()).isEqualTo(402);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(controller.executions() - before).isEqualTo(1);
  }

  @Test
  void theSameKeyFromAnotherCallerIsAnotherRequest() throws Exception {
    String key = key();
    int before = controller.executions();
    HttpResponse<byte[]> alice =
        post("alice", "/payments", key, "{\"orderId\":\"o3\",\"amountCents\":100}");
    HttpResponse<byte[]> bob =
        post("bob", "/payments", key, "{\"orderId\":\"o3\",\"amountCents\":100}");

    assertThat(alice.statusCode()).isEqualTo(201);
    assertThat(bob.statusCode()).isEqualTo(201);
    assertThat(text(bob)).contains("\"payer\":\"bob\"").doesNotContain("alice");
    assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(controller.executions() - before).isEqualTo(2);
  }

  @Test
  void theSameKeyWithAnotherBodyIs409KeyReused() throws Exception {
    String key = key();
    post("alice", "/payments", key, "{\"orderId\":\"o4\",\"amountCents\":100}");
    int before = controller.executions();
    HttpResponse<byte[]> other =
        post("alice", "/payments", key, "{\"orderId\":\"o4\",\"amountCents\":999}");

    assertThat(other.statusCode()).isEqualTo(409);
    assertThat(text(other)).contains("\"code\":\"idempotency_key_reused\"");
    assertThat(controller.executions()).isEqualTo(before);
  }

  @Test
  void aMissingKeyIs400AndTheControllerDoesNotRun() throws Exception {
    int before = controller.executions();
    HttpResponse<byte[]> r =
        post("alice", "/payments", null, "{\"orderId\":\"o5\",\"amountCents\":100}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(text(r)).contains("\"code\":\"idempotency_key_missing\"");
    assertThat(controller.executions()).isEqualTo(before);
  }

  @Test
  void anUnauthenticatedRequestIsRefusedBySecurityFirst() throws Exception {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
            .header("Idempotency-Key", key())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .timeout(Duration.ofSeconds(30))
            .build();
    assertThat(CLIENT.send(r, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
  }

  @Test
  void aDuplicateWhileTheFirstRunsIs409InFlightWithRetryAfter() throws Exception {
    String key = key();
    String body = "{\"orderId\":\"o6\",\"amountCents\":100}";
    ExecutorService pool = Executors.newSingleThreadExecutor();
    gate.close();
    try {
      Future<HttpResponse<byte[]>> first = pool.submit(() -> post("alice", "/payments", key, body));
      assertThat(gate.awaitHeld(30)).isTrue();
      HttpResponse<byte[]> duplicate = post("alice", "/payments", key, body);

      assertThat(duplicate.statusCode()).isEqualTo(409);
      assertThat(text(duplicate)).contains("\"code\":\"idempotency_request_in_flight\"");
      assertThat(duplicate.headers().firstValue("Retry-After")).isPresent();
      gate.open();
      assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    } finally {
      gate.open();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void thirtyTwoConcurrentRequestsWithOneKeyMakeOneControllerExecution() throws Exception {
    int n = 32;
    String key = key();
    String body = "{\"orderId\":\"gate\",\"amountCents\":100}";
    int before = controller.executions();
    ExecutorService pool = Executors.newFixedThreadPool(n);
    CountDownLatch start = new CountDownLatch(1);
    gate.close(); // the winner is held until every other request has its answer
    try {
      List<Future<HttpResponse<byte[]>>> answers = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        answers.add(
            pool.submit(
                () -> {
                  assertThat(start.await(30, TimeUnit.SECONDS)).isTrue();
                  return post("alice", "/payments", key, body);
                }));
      }
      start.countDown();
      assertThat(gate.awaitHeld(30)).isTrue();
      // every request but the held winner answers; wait for that, bounded, then read them
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (answers.stream().filter(Future::isDone).count() < n - 1
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      int conflicts = 0;
      Future<HttpResponse<byte[]>> winner = null;
      for (Future<HttpResponse<byte[]>> f : answers) {
        if (!f.isDone()) {
          assertThat(winner).as("only one request may be held in the handler").isNull();
          winner = f;
          continue;
        }
        HttpResponse<byte[]> r = f.get();
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(text(r)).contains("idempotency_request_in_flight");
        conflicts++;
      }
      assertThat(conflicts).isEqualTo(n - 1);
      gate.open();
      assertThat(winner).isNotNull();
      HttpResponse<byte[]> won = winner.get(30, TimeUnit.SECONDS);
      assertThat(won.statusCode()).isEqualTo(201);
      assertThat(controller.executions() - before).isEqualTo(1);
      assertThat(post("alice", "/payments", key, body).body()).isEqualTo(won.body());
    } finally {
      gate.open();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void anUnreachableStoreIs503TheControllerDoesNotRunAndHealthSaysDown() throws Exception {
    SwitchableDataSource db = (SwitchableDataSource) dataSource;
    int before = controller.executions();
    db.down(true);
    try {
      HttpResponse<byte[]> r =
          post("alice", "/payments", key(), "{\"orderId\":\"o7\",\"amountCents\":100}");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(text(r)).contains("\"code\":\"idempotency_store_unavailable\"");
      assertThat(r.headers().firstValue("Retry-After")).contains("5");
      assertThat(controller.executions()).isEqualTo(before);

      HttpResponse<String> health = get(null, "/actuator/health/idempotency");
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(health.body()).contains("\"status\":\"DOWN\"");
    } finally {
      db.down(false);
    }
    HttpResponse<String> health = get(null, "/actuator/health/idempotency");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"UP\"");
  }

  @Test
  void theOutcomesAndTimersReadBackThroughActuator() throws Exception {
    double replayedBefore = metric("idempotency.outcomes", "outcome:replayed", "COUNT");
    double mismatchBefore = metric("idempotency.outcomes", "outcome:mismatch", "COUNT");
    String key = key();
    post("bob", "/refunds", key, "{\"paymentId\":\"m1\"}");
    post("bob", "/refunds", key, "{\"paymentId\":\"m1\"}");
    post("bob", "/refunds", key, "{\"paymentId\":\"m2\"}");

    assertThat(metric("idempotency.outcomes", "outcome:replayed", "COUNT") - replayedBefore)
        .isEqualTo(1);
    assertThat(metric("idempotency.outcomes", "outcome:mismatch", "COUNT") - mismatchBefore)
        .isEqualTo(1);
    assertThat(metric("idempotency.claim", "result:claimed", "COUNT")).isPositive();
    assertThat(metric("idempotency.request", "outcome:executed", "COUNT")).isPositive();
    assertThat(get("bob", "/actuator/metrics/idempotency.in.flight").statusCode()).isEqualTo(200);
    assertThat(get("bob", "/actuator/metrics/idempotency.abandoned").statusCode()).isEqualTo(200);
    String tags = get("bob", "/actuator/metrics/idempotency.outcomes").body();
    assertThat(tags).doesNotContain(key).doesNotContain("bob");
  }

  private double metric(String name, String tag, String statistic) throws Exception {
    HttpResponse<String> r = get("alice", "/actuator/metrics/" + name + "?tag=" + tag);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    Matcher m =
        Pattern.compile("\\{\"statistic\":\"" + statistic + "\",\"value\":([0-9.E+-]+)\\}")
            .matcher(r.body());
    assertThat(m.find()).as(r.body()).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
