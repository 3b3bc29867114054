package dev.idempotency.client.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.ConnectionDroppingFilter;
import dev.idempotency.testing.CountingConfirmApp;
import dev.idempotency.testing.Fault;
import dev.idempotency.testing.FaultInjectingProxy;
import dev.idempotency.testing.ProxiedConfirmApp;
import dev.idempotency.testing.ScriptedFaults;
import java.io.IOException;
import java.time.Duration;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the interceptor prevents, measured: OkHttp as it ships ({@code retryOnConnectionFailure} on)
 * re-sends a POST whose response was lost after the server processed it, and without a key the
 * server runs it twice. The same traffic through the interceptor runs once.
 */
class OkHttpOwnRetriesPitfallTest {
  ProxiedConfirmApp server;
  CountingConfirmApp jetty;
  ConnectionDroppingFilter dropping;
  FaultInjectingProxy proxy;
  OkHttpClient http;

  @BeforeEach
  void start() throws Exception {
    IdempotencyEngine engine =
        IdempotencyEngine.builder(new InMemoryKeyStore())
            .config(IdempotencyConfig.builder().lease(Duration.ofSeconds(5)).build())
            .build();
    // the key is optional, as on many public APIs: an unkeyed POST runs, unprotected
    dropping =
        new ConnectionDroppingFilter(
            new IdempotencyFilter(
                IdempotencyHttp.builder(engine)
                    .endpoint(EndpointRule.of(KeyRequirement.OPTIONAL, "/**", "POST", "PATCH"))
                    .build()));
    server = ProxiedConfirmApp.start(dropping, engine);
    jetty = server.jetty;
    proxy = server.proxy;
  }

  @AfterEach
  void stop() throws Exception {
    try (ProxiedConfirmApp s = server) {
      OkHttpClients.shutDown(http);
    }
  }

  /** Straight to Jetty, whose connections stay open between requests. */
  Request confirm() {
    return new Request.Builder()
        .url("http://127.0.0.1:" + jetty.port() + "/orders/4711/confirm")
        .header("Authorization", "Bearer alice")
        .post(RequestBody.create("{\"amount\":100}", MediaType.get("application/json")))
        .build();
  }

  /**
   * A first request opens a kept-alive connection; the POST on it loses its response after the
   * server ran it. OkHttp sends it again on a new connection, and the caller sees a plain 201 with
   * two side effects behind it.
   */
  @Test
  void okHttpAsItShipsRunsAPostTwiceWhenItsKeptAliveConnectionIsLost() throws Exception {
    http = new OkHttpClient();
    assertThat(http.retryOnConnectionFailure()).as("the shipped default").isTrue();
    warmUp();
    dropping.dropNext(1);

    try (Response response = http.newCall(confirm()).execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(response.header("Idempotent-Replayed")).isNull();
    }

    assertThat(jetty.requests).as("the warm-up, the POST and OkHttp's re-send").hasValue(3);
    assertThat(jetty.app.effects()).as("the duplicate").isEqualTo(2);
  }

  @Test
  void theSameTrafficThroughTheInterceptorRunsOnce() throws Exception {
    http = new OkHttpClient.Builder().addInterceptor(IdempotencyInterceptor.create()).build();
    warmUp();
    dropping.dropNext(1);

    try (Response response = http.newCall(confirm()).execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(response.header("Idempotent-Replayed")).isEqualTo("true");
    }

    assertThat(jetty.requests).hasValue(3);
    assertThat(jetty.app.effects()).isEqualTo(1);
  }

  /**
   * On a connection of its own (the proxy closes every connection after one request), OkHttp's
   * retry does not re-send the POST: the lost response reaches the caller as an exception, and the
   * server ran it once. A caller that retries that by hand, without a key, makes the duplicate.
   */
  @Test
  void okHttpAsItShipsDoesNotResendAPostLostOnAFreshConnection() {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));
    http = new OkHttpClient();
    Request viaProxy =
        confirm().newBuilder().url(proxy.uri("/orders/4711/confirm").toString()).build();

    assertThatThrownBy(() -> http.newCall(viaProxy).execute())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("unexpected end of stream");
    assertThat(proxy.exchanges()).hasSize(1);
    assertThat(jetty.app.effects()).isEqualTo(1);
  }

  /** A GET that pools the connection (the servlet answers it 405; no side effect). */
  void warmUp() throws IOException {
    Request get =
        new Request.Builder()
            .url("http://127.0.0.1:" + jetty.port() + "/orders/4711")
            .header("Authorization", "Bearer alice")
            .build();
    try (Response response = http.newCall(get).execute()) {
      assertThat(response.code()).isEqualTo(405);
      response.body().string();
    }
  }
}
