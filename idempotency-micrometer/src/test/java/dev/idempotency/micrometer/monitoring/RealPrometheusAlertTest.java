package dev.idempotency.micrometer.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.Work;
import dev.idempotency.micrometer.IdempotencyMetrics;
import dev.idempotency.testing.DelegatingStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The whole chain on real parts: an engine whose completion stores nothing, its meters served as
 * Micrometer's Prometheus registry renders them, a real Prometheus server (Debian's package)
 * scraping them every second with the shipped rules, and the page firing. Tagged {@code slow}
 * (about 15 s, most of it the server's start): the default run checks the same rules with promtool.
 */
@Tag("slow")
class RealPrometheusAlertTest {
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aCompletionThatStoredNothingPagesOnARealPrometheus(@TempDir Path dir) throws Exception {
    Path prometheus = DebianBinaries.required("prometheus");
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    IdempotencyMetrics metrics = IdempotencyMetrics.create(registry);
    HttpServer app = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    app.createContext(
        "/metrics",
        exchange -> {
          byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    app.start();
    int port = freePort();
    Files.copy(ScrapedNames.RULES.toAbsolutePath(), dir.resolve("rules.yml"));
    Files.writeString(
        dir.resolve("prometheus.yml"),
        """
        global: {scrape_interval: 1s, evaluation_interval: 1s}
        rule_files: [rules.yml]
        scrape_configs:
          - job_name: payments
            static_configs: [{targets: ['127.0.0.1:%d']}]
        """
            .formatted(app.getAddress().getPort()));
    Process server =
        new ProcessBuilder(
                prometheus.toString(),
                "--config.file=prometheus.yml",
                "--storage.tsdb.path=tsdb",
                "--web.listen-address=127.0.0.1:" + port)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    try (IdempotencyEngine engine = engineWhoseCompletionsFail(metrics)) {
      URI api = URI.create("http://127.0.0.1:" + port + "/api/v1/");
      // the counter's zero is scraped first, so that the event is an increase
      awaitJson(
          api.resolve(
              "query?query="
                  + URLEncoder.encode(
                      "idempotency_duplicate_risk_total{cause=\"completion_failed\"} == 0",
                      StandardCharsets.UTF_8)),
          r -> r.at("/data/result").size() == 1);
      assertThat(alerts(api)).isEmpty();

      engine.execute(
          RecordId.of("acct-1", "k1"), Fingerprint.of(new byte[] {1}), Work.stepped(e -> OK));

      JsonNode firing =
          awaitJson(api.resolve("alerts"), r -> r.at("/data/alerts").size() > 0).at("/data/alerts");
      assertThat(firing).hasSize(1);
      JsonNode alert = firing.get(0);
      assertThat(alert.at("/labels/alertname").asString()).isEqualTo("IdempotencyDuplicateRisk");
      assertThat(alert.at("/labels/cause").asString()).isEqualTo("completion_failed");
      assertThat(alert.at("/labels/severity").asString()).isEqualTo("page");
      assertThat(alert.at("/state").asString()).isEqualTo("firing");
    } finally {
      server.destroyForcibly();
      server.waitFor(30, TimeUnit.SECONDS);
      app.stop(0);
      registry.close();
    }
  }

  private static final StoredResponse OK = StoredResponse.ofUtf8(200, "ok");

  /** A store that cannot be reached while a result is stored: a short lease bounds the retries. */
  private static IdempotencyEngine engineWhoseCompletionsFail(IdempotencyMetrics metrics) {
    var store =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            throw new StoreUnavailableException("down while completing", null);
          }
        };
    return IdempotencyEngine.builder(metrics.timed(store))
        .config(
            IdempotencyConfig.builder()
                .lease(Duration.ofMillis(300))
                .heartbeatInterval(Duration.ofMillis(100))
                .listener(metrics)
                .build())
        .build();
  }

  private JsonNode alerts(URI api) throws IOException, InterruptedException {
    return getJson(api.resolve("alerts")).at("/data/alerts");
  }

  /** Polls {@code uri} until its JSON satisfies {@code done}, for at most the deadline. */
  private JsonNode awaitJson(URI uri, Predicate<JsonNode> done) throws InterruptedException {
    long until = System.nanoTime() + DEADLINE.toNanos();
    Exception last = null;
    while (System.nanoTime() < until) {
      try {
        JsonNode body = getJson(uri);
        if (done.test(body)) {
          return body;
        }
      } catch (IOException e) {
        last = e; // the server is still starting
      }
      Thread.sleep(250);
    }
    return fail("no answer to " + uri + " within " + DEADLINE + " (last failure: " + last + ")");
  }

  private JsonNode getJson(URI uri) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(uri + " answered " + response.statusCode());
    }
    return json.readTree(response.body());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
