package dev.idempotency.client.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.TricklingServer;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.Test;

/** The deadline over the response body, against a server that trickles its body. */
class IdempotentRetryExecTest {
  /**
   * A body of 100 bytes, one every 100 ms, never trips the socket timeout (it restarts with every
   * byte). The attempt timeout, 500 ms, cuts the body off: the call fails with a timeout long
   * before the body is complete.
   */
  @Test
  void theAttemptTimeoutBoundsAResponseBodyThatTricklesIn() throws Exception {
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(1)
            .attemptTimeout(Duration.ofMillis(500))
            .environment(RetryEnvironment.system().withSleeper(d -> {}))
            .build();
    try (TricklingServer server = TricklingServer.start();
        CloseableHttpClient http =
            IdempotentRetryExec.of(policy).installOn(HttpClients.custom()).build()) {
      RetriesExhaustedException stop =
          catchThrowableOfType(
              RetriesExhaustedException.class,
              () -> http.execute(new HttpGet(server.url()), Exchange::of));

      assertThat(stop.reason()).isEqualTo(StopReason.ATTEMPTS);
      assertThat(stop).hasCauseInstanceOf(SocketTimeoutException.class);
      assertThat(server.bytesSent())
          .as("the body was not complete")
          .isLessThan(TricklingServer.BODY_LENGTH);
      http.close(CloseMode.IMMEDIATE);
    }
  }
}
