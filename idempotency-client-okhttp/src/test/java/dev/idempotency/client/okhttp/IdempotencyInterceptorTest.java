package dev.idempotency.client.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.TricklingServer;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The deadline over the response body, against a server that trickles its body. */
class IdempotencyInterceptorTest {
  private OkHttpClient http;

  @AfterEach
  void shutDown() {
    OkHttpClients.shutDown(http);
  }

  /**
   * A body of 100 bytes, one every 100 ms, never trips OkHttp's read timeout (a minute here, and it
   * restarts with every byte). The interceptor's attempt timeout, 500 ms, ends the attempt: the
   * call fails with a timeout long before the body is complete.
   */
  @Test
  void theAttemptTimeoutBoundsAResponseBodyThatTricklesIn() throws Exception {
    try (TricklingServer server = TricklingServer.start()) {
      RetryPolicy policy =
          RetryPolicy.builder()
              .maxAttempts(1)
              .attemptTimeout(Duration.ofMillis(500))
              .environment(RetryEnvironment.system().withSleeper(d -> {}))
              .build();
      http =
          new OkHttpClient.Builder()
              .readTimeout(1, TimeUnit.MINUTES)
              .addInterceptor(IdempotencyInterceptor.builder().policy(policy).build())
              .build();

      RetriesExhaustedException stop =
          catchThrowableOfType(
              RetriesExhaustedException.class,
              () -> http.newCall(new Request.Builder().url(server.url()).build()).execute());

      assertThat(stop.reason()).isEqualTo(StopReason.ATTEMPTS);
      assertThat(stop).hasCauseInstanceOf(InterruptedIOException.class);
      assertThat(server.bytesSent())
          .as("the body was not complete")
          .isLessThan(TricklingServer.BODY_LENGTH);
    }
  }
}
