package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.JettyHarness;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The route table from routes.yaml drives the real servlet filter in Jetty: a keyed endpoint
 * answers 400 without a key and never reaches the application; an unkeyed GET and an unkeyed POST
 * pass through; a keyed POST sent twice runs once.
 */
class RoutesInJettyTest {
  private final AtomicInteger runs = new AtomicInteger();
  private IdempotencyEngine engine;
  private JettyHarness jetty;

  @BeforeEach
  void start() throws Exception {
    engine = IdempotencyEngine.builder(new InMemoryKeyStore()).build();
    IdempotencyHttpBuilder http = IdempotencyHttp.builder(engine).anonymousScope(Scope.of("test"));
    OpenApiRoutes.from(Specs.spec("routes.yaml")).forEach(http::endpoint);
    jetty =
        JettyHarness.start(
            new HttpServlet() {
              private static final long serialVersionUID = 1L;

              @Override
              protected void service(HttpServletRequest req, HttpServletResponse res)
                  throws IOException {
                res.setStatus(200);
                res.setContentType("text/plain");
                res.getWriter().write("run " + runs.incrementAndGet());
              }
            },
            new IdempotencyFilter(http.build()));
  }

  @AfterEach
  void stop() {
    jetty.close();
    engine.close();
  }

  private HttpResponse<String> send(String method, String path, String key) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(jetty.uri(path))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.ofString("{}"));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return JettyHarness.CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aKeyedEndpointAnswers400WithoutAKeyAndTheApplicationDoesNotRun() throws Exception {
    HttpResponse<String> orders = send("POST", "/orders", null);
    HttpResponse<String> file = send("POST", "/files/report.pdf", null);

    assertThat(orders.statusCode()).isEqualTo(400);
    assertThat(orders.body()).contains("idempotency_key_missing");
    assertThat(file.statusCode()).isEqualTo(400);
    assertThat(runs).hasValue(0);
  }

  @Test
  void unkeyedGetAndUnkeyedPostPassThrough() throws Exception {
    assertThat(send("GET", "/orders", null).body()).isEqualTo("run 1");
    // the literal path the keyed template /files/{name} would otherwise catch
    assertThat(send("POST", "/files/upload", null).body()).isEqualTo("run 2");
    // optional key on PUT
    assertThat(send("PUT", "/orders/42", null).body()).isEqualTo("run 3");
  }

  @Test
  void aKeyedPostSentTwiceRunsOnce() throws Exception {
    HttpResponse<String> first = send("POST", "/orders", "order-1");
    HttpResponse<String> second = send("POST", "/orders", "order-1");

    assertThat(first.body()).isEqualTo("run 1");
    assertThat(second.body()).isEqualTo("run 1");
    assertThat(second.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(runs).hasValue(1);
  }
}
