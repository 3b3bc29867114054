package dev.idempotency.client.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.RecordingLogger;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 over cleartext (prior knowledge) against MockWebServer, which resets a stream with the
 * error code a test names. {@code REFUSED_STREAM} (RFC 9113 section 8.7) guarantees the server did
 * not process the request, so it is retried for any method, even an unkeyed PUT; any other reset is
 * not.
 */
class RefusedStreamTest {
  /** RFC 9113 section 7: the error codes. */
  private static final int REFUSED_STREAM = 0x7;

  private static final int INTERNAL_ERROR = 0x2;

  private final MockWebServer server = new MockWebServer();
  private OkHttpClient http;

  @BeforeEach
  void start() throws Exception {
    server.setProtocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE));
    server.start();
    RetryPolicy policy =
        RetryPolicy.builder()
            .environment(
                RetryEnvironment.system().withSleeper(d -> {}).withLogger(new RecordingLogger()))
            .build();
    http =
        new OkHttpClient.Builder()
            .protocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE))
            .addInterceptor(IdempotencyInterceptor.builder().policy(policy).build())
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    OkHttpClients.shutDown(http);
    server.close();
  }

  private static MockResponse resetWith(int errorCode) {
    return new MockResponse.Builder()
        .onRequestStart(new SocketEffect.CloseStream(errorCode))
        .build();
  }

  /**
   * The requests the server recorded, once it recorded {@code expected} or 5 s passed: it records a
   * reset stream on its own thread, which may come after the client's call returned (seen in CI: 0
   * recorded when the call had ended).
   */
  private int requestsSeen(int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (server.getRequestCount() < expected && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return server.getRequestCount();
  }

  private Request put() {
    return new Request.Builder()
        .url(server.url("/accounts/7/limit"))
        .put(RequestBody.create("{\"limit\":500}", MediaType.get("application/json")))
        .build();
  }

  @Test
  void anUnkeyedPutRefusedByTheServerIsRetried() throws Exception {
    server.enqueue(resetWith(REFUSED_STREAM));
    server.enqueue(new MockResponse.Builder().code(200).body("set").build());

    try (Response response = http.newCall(put()).execute()) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.body().string()).isEqualTo("set");
      assertThat(response.protocol()).isEqualTo(Protocol.H2_PRIOR_KNOWLEDGE);
    }
    assertThat(requestsSeen(2)).as("streams the server saw").isEqualTo(2);
    assertThat(server.takeRequest().getHeaders().get("Idempotency-Key")).isNull();
  }

  /** Refused every time: the call stops when its attempts run out, saying nothing was processed. */
  @Test
  void aStreamRefusedEveryTimeStopsWhenTheAttemptsRunOut() throws Exception {
    for (int i = 0; i < 3; i++) {
      server.enqueue(resetWith(REFUSED_STREAM));
    }

    RetriesExhaustedException stop =
        catchThrowableOfType(RetriesExhaustedException.class, () -> http.newCall(put()).execute());

    assertThat(stop.reason()).isEqualTo(StopReason.ATTEMPTS);
    assertThat(stop.attempts()).isEqualTo(3);
    assertThat(stop).hasMessageContaining("REFUSED_STREAM");
    assertThat(requestsSeen(3)).isEqualTo(3);
  }

  /** Another reset says nothing about processing: an unkeyed PUT is not re-sent. */
  @Test
  void anotherResetOfAnUnkeyedPutIsNotRetried() throws Exception {
    server.enqueue(resetWith(INTERNAL_ERROR));
    server.enqueue(new MockResponse.Builder().code(200).build());

    RetriesExhaustedException stop =
        catchThrowableOfType(RetriesExhaustedException.class, () -> http.newCall(put()).execute());

    assertThat(stop.reason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(requestsSeen(1)).isEqualTo(1);
  }
}
