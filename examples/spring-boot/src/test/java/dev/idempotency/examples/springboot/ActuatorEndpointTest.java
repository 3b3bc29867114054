package dev.idempotency.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The {@code idempotency} Actuator endpoint in the example app, over real HTTP with Spring Security
 * on: only the operator lists and settles stuck keys, a listed record shows no stored body, and a
 * released key's retry runs the controller anew.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.datasource.url=jdbc:h2:mem:boot-actuator;DB_CLOSE_DELAY=-1",
      "management.endpoints.web.exposure.include=health,idempotency",
      "idempotency.admin-endpoint.writes-enabled=true"
    })
@Timeout(60)
class ActuatorEndpointTest {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @LocalServerPort int port;
  @Autowired IdempotencyEngine engine;
  @Autowired PaymentsController controller;

  @Test
  void onlyTheOperatorListsAndSettlesAndAReleasedKeysRetryRunsAnew() throws Exception {
    String key = "k-" + UUID.randomUUID();
    RecordId id = RecordId.of("alice", key);
    // a request of alice's whose instance died: claimed with a lease of 300 ms that nobody renews
    // (the JDBC store judges leases by the database's clock, so the lease runs out in real time)
    ClaimOutcome claimed =
        engine
            .store()
            .claim(
                new ClaimRequest(
                    id,
                    Fingerprint.of(new byte[32]),
                    Instant.now(),
                    Duration.ofMillis(300),
                    Duration.ofHours(24)));
    assertThat(claimed).isInstanceOf(ClaimOutcome.Claimed.class);
    String list = "/actuator/idempotency?selection=ABANDONED&scope=alice";

    assertThat(send(null, "GET", list, null).statusCode()).as("no credentials").isEqualTo(401);
    assertThat(send("alice", "GET", list, null).statusCode()).as("a caller").isEqualTo(403);
    assertThat(
            send(
                    "alice",
                    "POST",
                    "/actuator/idempotency/alice/" + key,
                    release(),
                    "Idempotency-Key",
                    "release-" + key)
                .statusCode())
        .as("a caller settling her own key")
        .isEqualTo(403);
    assertThat(engine.store().lookup(id).orElseThrow().state()).isEqualTo(KeyState.IN_FLIGHT);

    HttpResponse<String> listed = send("ops", "GET", list, null);
    for (int i = 0; i < 50 && !listed.body().contains(key); i++) {
      Thread.sleep(100); // until the lease has run out
      listed = send("ops", "GET", list, null);
    }
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(listed.body()).contains("\"key\":\"" + key + "\"").contains("IN_FLIGHT");
    assertThat(listed.body()).as("no stored body in a row").doesNotContain("\"body\"");

    // the app's endpoint rule guards POST on every path, the endpoint's too: the operator's release
    // carries a key of its own, so a retried release gets the first answer
    HttpResponse<String> released =
        send(
            "ops",
            "POST",
            "/actuator/idempotency/alice/" + key,
            release(),
            "Idempotency-Key",
            "release-" + key);
    assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
    assertThat(released.body()).contains("RELEASED");
    assertThat(engine.store().lookup(id)).as("the record, after the release").isEmpty();

    int before = controller.executions();
    HttpResponse<String> retry =
        send(
            "alice",
            "POST",
            "/payments",
            "{\"orderId\":\"o-actuator\",\"amountCents\":1200}",
            "Idempotency-Key",
            key);
    assertThat(retry.statusCode()).as("the client's retry, run anew").isEqualTo(201);
    assertThat(controller.executions()).isEqualTo(before + 1);
  }

  @Test
  void theOperatorKeepsACompletedRecordLongerAndNothingElseOfItChanges() throws Exception {
    String key = "k-" + UUID.randomUUID();
    RecordId id = RecordId.of("alice", key);
    ClaimOutcome.Claimed claimed =
        (ClaimOutcome.Claimed)
            engine
                .store()
                .claim(
                    new ClaimRequest(
                        id,
                        Fingerprint.of(new byte[32]),
                        Instant.now(),
                        Duration.ofSeconds(30),
                        Duration.ofHours(24)));
    engine.store().complete(id, claimed.fence(), StoredResponse.ofUtf8(201, "{}"), Instant.now());
    Optional<RecordSnapshot> before = engine.store().lookup(id);
    String path = "/actuator/idempotency/alice/" + key;

    HttpResponse<String> missing =
        send(
            "ops",
            "POST",
            path,
            "{\"action\":\"extend\",\"reason\":\"audit 17\"}",
            "Idempotency-Key",
            "extend-missing-" + key);
    assertThat(missing.statusCode()).as("an extend without keepFor or keepUntil").isEqualTo(400);
    HttpResponse<String> extended =
        send(
            "ops",
            "POST",
            path,
            "{\"action\":\"extend\",\"keepFor\":\"P7D\",\"reason\":\"audit 17\"}",
            "Idempotency-Key",
            "extend-" + key);
    assertThat(extended.statusCode()).as(extended.body()).isEqualTo(200);
    assertThat(extended.body()).contains("EXTENDED").contains("audit 17");
    assertThat(engine.store().lookup(id)).as("the record after the extension").isEqualTo(before);
  }

  private static String release() {
    return "{\"action\":\"release\",\"reason\":\"nothing was charged\"}";
  }

  private HttpResponse<String> send(
      String user, String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (user != null) {
      String credentials = user + ":" + user + "-secret";
      b.header(
          "Authorization",
          "Basic "
              + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
