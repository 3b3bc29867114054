package dev.idempotency.client.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.TricklingServer;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.Test;

/** The attempt timeout over the whole response, against a server that trickles it. */
class IdempotentRetryExecTest {
  /**
   * A body of 100 bytes, one every 100 ms, never trips the socket timeout (it restarts with every
   * byte). The attempt timeout, 500 ms, cuts the body off: the call fails with a timeout long
   * before the body is complete.
   */
  @Test
  void theAttemptTimeoutBoundsAResponseBodyThatTricklesIn() throws Exception {
    try (TricklingServer server = TricklingServer.start()) {
      assertTheAttemptTimesOutBeforeTheTrickleEnds(server);
    }
  }

  /**
   * A head trickled in, one header byte every 100 ms: the socket timeout restarts with each byte,
   * so only the timer from the attempt's start ends the attempt at its 500 ms.
   */
  @Test
  void theAttemptTimeoutBoundsAResponseHeadThatTricklesIn() throws Exception {
    try (TricklingServer server = TricklingServer.startTricklingHead()) {
      assertTheAttemptTimesOutBeforeTheTrickleEnds(server);
    }
  }

  /** One attempt of 500 ms against {@code server}: a timeout, the response not complete. */
  private static void assertTheAttemptTimesOutBeforeTheTrickleEnds(TricklingServer server)
      throws Exception {
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(1)
            .attemptTimeout(Duration.ofMillis(500))
            .environment(RetryEnvironment.system().withSleeper(d -> {}))
            .build();
    try (CloseableHttpClient http =
        IdempotentRetryExec.of(policy).installOn(HttpClients.custom()).build()) {
      RetriesExhaustedException stop =
          catchThrowableOfType(
              RetriesExhaustedException.class,
              () -> http.execute(new HttpGet(server.url()), Exchange::of));

      assertThat(stop.reason()).isEqualTo(StopReason.ATTEMPTS);
      assertThat(stop).hasCauseInstanceOf(SocketTimeoutException.class);
      assertThat(server.bytesSent())
          .as("the response was not complete")
          .isLessThan(TricklingServer.BODY_LENGTH);
      http.close(CloseMode.IMMEDIATE);
    }
  }

  /**
   * The timer of an attempt that ended in time is cancelled and removed: twenty quick calls leave
   * no task queued behind them (each would hold its attempt's scope for the whole timeout).
   */
  @Test
  void theTimerOfAnAttemptThatEndedIsCancelled() throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] ok = "ok".getBytes(StandardCharsets.US_ASCII);
          exchange.sendResponseHeaders(200, ok.length);
          exchange.getResponseBody().write(ok);
          exchange.close();
        });
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    try (CloseableHttpClient http =
        IdempotentRetryExec.of(RetryPolicy.ofDefaults()).installOn(HttpClients.custom()).build()) {
      for (int i = 0; i < 20; i++) {
        assertThat(http.execute(new HttpGet(url), Exchange::of).code()).isEqualTo(200);
      }
      assertThat(AttemptTimer.pending()).as("timer tasks left behind").isZero();
    } finally {
      server.stop(0);
    }
  }

  /**
   * A 503 whose gzipped problem body says {@code "retryable": false}: the handler, installed
   * outside the client's decompression, reads the member and returns the 503 without a retry.
   */
  @Test
  void aGzippedProblemBodyIsReadDecompressed() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
          try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped)) {
            gzip.write(
                "{\"type\":\"about:blank\",\"status\":503,\"retryable\":false}"
                    .getBytes(StandardCharsets.UTF_8));
          }
          exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
          exchange.getResponseHeaders().add("Content-Encoding", "gzip");
          exchange.sendResponseHeaders(503, gzipped.size());
          exchange.getResponseBody().write(gzipped.toByteArray());
          exchange.close();
        });
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    RetryPolicy policy =
        RetryPolicy.builder().environment(RetryEnvironment.system().withSleeper(d -> {})).build();
    try (CloseableHttpClient http =
        IdempotentRetryExec.of(policy).installOn(HttpClients.custom()).build()) {
      assertThat(http.execute(new HttpGet(url), Exchange::of).code()).isEqualTo(503);
      assertThat(requests).as("requests at the server: the 503 is final").hasValue(1);
    } finally {
      server.stop(0);
    }
  }
}
