package dev.idempotency.client.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.RequestNotProcessedException;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.RecordingLogger;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.classic.methods.HttpPut;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.io.ConnectionEndpoint;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * When the attempt's timer ends an attempt that never got a connection (a wait for the pool's one
 * connection, held by someone else, or a connect to a socket that never accepts), the request never
 * left: the call is told so, and an unkeyed PUT is as retryable as after a refused connection. Real
 * time: 300 ms attempts.
 */
class NotSentTest {
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private static RetryPolicy policy(int maxAttempts, Duration deadline) {
    return RetryPolicy.builder()
        .maxAttempts(maxAttempts)
        .attemptTimeout(Duration.ofMillis(300))
        .deadline(deadline)
        .environment(
            RetryEnvironment.system().withSleeper(d -> {}).withLogger(new RecordingLogger()))
        .build();
  }

  /** A PUT gets no key, and is not idempotent by default: only a request never sent is re-sent. */
  private static HttpPut unkeyedPut(int port) {
    HttpPut put = new HttpPut("http://127.0.0.1:" + port + "/accounts/7/limit");
    put.setEntity(new StringEntity("{\"limit\":500}", ContentType.APPLICATION_JSON));
    return put;
  }

  /**
   * A pool of one connection whose only lease someone else holds: an unkeyed PUT waits for it until
   * its attempt ends. The request never left, so it is retryable (here, one attempt: ATTEMPTS), not
   * a "may have had its effect" NOT_RETRYABLE.
   */
  @Test
  void aPoolWaitCutOffIsNotProcessedAndRetryable() throws Exception {
    RetriesExhaustedException stop = putThroughABusyPool(policy(1, Duration.ofSeconds(30)));

    assertThat(stop.reason()).isEqualTo(StopReason.ATTEMPTS);
    // the attempt's timer or HttpClient 5's own pool timeout, whichever comes first
    assertThat(stop.getCause())
        .satisfiesAnyOf(
            cause ->
                assertThat(cause)
                    .isInstanceOf(RequestNotProcessedException.class)
                    .hasMessageContaining("pooled connection"),
            cause -> assertThat(cause).isInstanceOf(ConnectionRequestTimeoutException.class));
  }

  /** The same wait cut off by the deadline itself: the stop says the request was not processed. */
  @Test
  void aPoolWaitCutOffByTheDeadlineSaysTheRequestWasNotProcessed() throws Exception {
    RetriesExhaustedException stop = putThroughABusyPool(policy(3, Duration.ofMillis(300)));

    assertThat(stop.reason()).isEqualTo(StopReason.DEADLINE);
    // the attempt's timer or HttpClient 5's own pool timeout (a millisecond earlier, whose retry
    // then finds no time for its wait), whichever comes first: neither claims the request went out
    assertThat(stop).hasMessageNotContaining("may have been applied");
    assertThat(stop.getCause())
        .isInstanceOfAny(
            RequestNotProcessedException.class, ConnectionRequestTimeoutException.class);
    if (stop.getMessage().contains("passed during attempt")) {
      assertThat(stop).hasMessageMatching("(?s).*; the request was (not processed|never sent); .*");
    }
  }

  /**
   * A connect to a socket whose accept queue is full (the kernel drops the SYN, the client waits
   * for the handshake): the attempt's timer ends the connect, and the request never left.
   */
  @Test
  @org.junit.jupiter.api.Timeout(
      value = 30,
      unit = TimeUnit.SECONDS,
      threadMode = ThreadMode.SEPARATE_THREAD)
  void aConnectCutOffIsNotProcessedAndRetryable() throws Exception {
    try (ServerSocket server = neverAccepting()) {
      CloseableHttpClient http =
          IdempotentRetryExec.of(policy(2, Duration.ofSeconds(30)))
              .installOn(HttpClients.custom())
              .build();
      toClose.add(() -> http.close(CloseMode.IMMEDIATE));

      RetriesExhaustedException stop =
          catchThrowableOfType(
              RetriesExhaustedException.class,
              () -> http.execute(unkeyedPut(server.getLocalPort()), Exchange::of));

      assertThat(stop.reason()).as("%s", stop.getMessage()).isEqualTo(StopReason.ATTEMPTS);
      assertThat(stop.attempts()).as("retried: the first attempt never left").isEqualTo(2);
      assertThat(stop).hasCauseInstanceOf(RequestNotProcessedException.class);
      assertThat(stop.getCause()).hasMessageContaining("connect");
    }
  }

  /** An unkeyed PUT through a client whose pool's one connection someone else holds. */
  private RetriesExhaustedException putThroughABusyPool(RetryPolicy policy) throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      CloseableHttpClient http = busyPoolClient(server.getLocalPort(), policy);
      return catchThrowableOfType(
          RetriesExhaustedException.class,
          () -> http.execute(unkeyedPut(server.getLocalPort()), Exchange::of));
    }
  }

  /** A client whose pool has one connection to the server's route, leased by someone else. */
  private CloseableHttpClient busyPoolClient(int port, RetryPolicy policy) throws Exception {
    PoolingHttpClientConnectionManager pool =
        PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnTotal(1)
            .setMaxConnPerRoute(1)
            .build();
    ConnectionEndpoint held =
        pool.lease("holder", new HttpRoute(new HttpHost("http", "127.0.0.1", port)), null)
            .get(Timeout.ofSeconds(5));
    CloseableHttpClient http =
        IdempotentRetryExec.of(policy)
            .installOn(HttpClients.custom().setConnectionManager(pool))
            .build();
    toClose.add(() -> http.close(CloseMode.IMMEDIATE));
    toClose.add(() -> held.close(CloseMode.IMMEDIATE));
    return http;
  }

  /**
   * A listening socket with a backlog of one that never accepts, its queue filled until a connect
   * times out: from then on the kernel drops new handshakes, and a connect waits.
   */
  private ServerSocket neverAccepting() throws IOException {
    ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    for (int i = 0; i < 64; i++) {
      Socket filler = new Socket();
      toClose.add(filler);
      try {
        filler.connect(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 200);
      } catch (SocketTimeoutException full) {
        return server;
      }
    }
    server.close();
    throw new IllegalStateException(
        "the accept queue never filled: this test needs Linux's SYN drop");
  }
}
