package dev.idempotency.client.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
   * A body of 100 bytes, one byte every 100 ms (10 s in all), never trips OkHttp's read timeout (a
   * minute here, and it restarts with every byte). The interceptor's attempt timeout, 500 ms, ends
   * the attempt: the call fails with a timeout long before the body is complete.
   */
  @Test
  void theAttemptTimeoutBoundsAResponseBodyThatTricklesIn() throws Exception {
    AtomicInteger bytesSent = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread trickler = new Thread(() -> trickle(server, bytesSent), "trickling-server");
      trickler.start();
      try {
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
        Request get =
            new Request.Builder().url("http://127.0.0.1:" + server.getLocalPort() + "/").build();

        RetriesExhaustedException stop =
            catchThrowableOfType(
                RetriesExhaustedException.class, () -> http.newCall(get).execute());

        assertThat(stop.reason()).isEqualTo(StopReason.ATTEMPTS);
        assertThat(stop).hasCauseInstanceOf(InterruptedIOException.class);
        assertThat(bytesSent).as("the body was not complete").hasValueLessThan(100);
      } finally {
        server.close();
        trickler.join(TimeUnit.SECONDS.toMillis(15));
      }
      assertThat(trickler.isAlive()).isFalse();
    }
  }

  /** Answers one request with a 100-byte body, a byte every 100 ms, until the client hangs up. */
  private static void trickle(ServerSocket server, AtomicInteger bytesSent) {
    try (Socket socket = server.accept()) {
      InputStream in = socket.getInputStream();
      int matched = 0;
      byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      while (matched < end.length) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
      }
      OutputStream out = socket.getOutputStream();
      out.write(
          "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < 100; i++) {
        out.write('x');
        out.flush();
        bytesSent.incrementAndGet();
        Thread.sleep(100);
      }
    } catch (IOException e) {
      // the client hung up, or the test closed the server: the trickle ends
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
