package dev.idempotency.client.httpclient5;

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
import dev.idempotency.testing.ProxiedConfirmApp;
import java.io.IOException;
import java.time.Duration;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpPut;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What Apache HttpClient 5 does as it ships ({@code DefaultHttpRequestRetryStrategy}) when a
 * kept-alive connection ends without an answer after the server processed the request, measured: it
 * does not re-send a POST (the caller gets {@code NoHttpResponseException}, and a caller that
 * retries that by hand without a key makes the duplicate), but it does re-send a PUT, which it
 * takes for idempotent. Through the handler the POST is retried with its key and runs once.
 */
class HttpClient5OwnRetriesPitfallTest {
  ProxiedConfirmApp server;
  ConnectionDroppingFilter dropping;
  CloseableHttpClient http;

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
  }

  @AfterEach
  void stop() {
    try (ProxiedConfirmApp s = server) {
      if (http != null) {
        http.close(CloseMode.IMMEDIATE);
      }
    }
  }

  /** Straight to Jetty, whose connections stay open between requests. */
  String direct(String path) {
    return "http://127.0.0.1:" + server.jetty.port() + path;
  }

  HttpPost confirm() {
    HttpPost post = new HttpPost(direct("/orders/4711/confirm"));
    post.setHeader("Authorization", "Bearer alice");
    post.setEntity(new StringEntity("{\"amount\":100}", ContentType.APPLICATION_JSON));
    return post;
  }

  /** A GET that opens the kept-alive connection (the servlet answers it 405; no side effect). */
  void warmUp() throws IOException {
    HttpGet get = new HttpGet(direct("/orders/4711"));
    get.setHeader("Authorization", "Bearer alice");
    assertThat(http.execute(get, Exchange::of).code()).isEqualTo(405);
  }

  @Test
  void asItShipsItDoesNotResendALostPost() throws IOException {
    http = HttpClients.createDefault();
    warmUp();
    dropping.dropNext(1);

    assertThatThrownBy(() -> http.execute(confirm(), Exchange::of))
        .isInstanceOf(NoHttpResponseException.class);
    assertThat(server.jetty.requests).as("the warm-up and the POST").hasValue(2);
    assertThat(server.effects()).isEqualTo(1);
  }

  @Test
  void asItShipsItResendsALostPut() throws IOException {
    http = HttpClients.createDefault();
    warmUp();
    dropping.dropNext(1);
    HttpPut put = new HttpPut(direct("/orders/4711"));
    put.setHeader("Authorization", "Bearer alice");
    put.setEntity(new StringEntity("{}", ContentType.APPLICATION_JSON));

    assertThat(http.execute(put, Exchange::of).code()).isEqualTo(405);
    assertThat(server.jetty.requests).as("the warm-up, the PUT and its re-send").hasValue(3);
  }

  @Test
  void throughTheHandlerTheLostPostIsRetriedWithItsKeyAndRunsOnce() throws IOException {
    http = IdempotentRetryExec.install(HttpClients.custom()).build();
    warmUp();
    dropping.dropNext(1);

    Exchange response = http.execute(confirm(), Exchange::of);

    assertThat(response.code()).isEqualTo(201);
    assertThat(response.replayed()).isEqualTo("true");
    assertThat(server.jetty.requests).hasValue(3);
    assertThat(server.effects()).isEqualTo(1);
  }
}
