package dev.idempotency.client.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.client.LookupDeadline;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.RecordingLogger;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Dns;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A name lookup slower than the deadline: the client's own resolver, made slow by the test (it
 * answers only when the test lets it), under a 400 ms deadline. The call must end at the deadline,
 * while the lookup still waits, and never reach the server.
 */
class SlowDnsTest {
  private final MockWebServer server = new MockWebServer();
  private final CountDownLatch answer = new CountDownLatch(1);
  private final AtomicInteger answered = new AtomicInteger();
  private OkHttpClient http;

  /**
   * Resolves every name to the loopback address once the test lets it (3 s at the most), deaf to
   * interrupts, as a blocked {@code getaddrinfo} is.
   */
  private final Dns slow =
      hostname -> {
        boolean interrupted = false;
        while (true) {
          try {
            answer.await(3, TimeUnit.SECONDS);
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
        answered.incrementAndGet();
        return List.of(InetAddress.getLoopbackAddress());
      };

  @BeforeEach
  void start() throws Exception {
    server.start();
    server.enqueue(new MockResponse.Builder().code(201).body("charged").build());
    RetryPolicy policy =
        RetryPolicy.builder()
            .deadline(Duration.ofMillis(400))
            .attemptTimeout(Duration.ofMillis(400))
            .environment(
                RetryEnvironment.system().withSleeper(d -> {}).withLogger(new RecordingLogger()))
            .build();
    http =
        new OkHttpClient.Builder()
            .dns(slow)
            .addInterceptor(IdempotencyInterceptor.builder().policy(policy).build())
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    answer.countDown();
    OkHttpClients.shutDown(http);
    server.close();
  }

  @Test
  void aSlowLookupEndsTheCallAtItsDeadlineAndNothingIsSent() {
    Request charge =
        new Request.Builder()
            .url("http://slow-dns.test:" + server.getPort() + "/charges")
            .post(RequestBody.create("{\"amount\":100}", MediaType.get("application/json")))
            .build();

    Throwable failure = catchThrowable(() -> http.newCall(charge).execute().close());

    assertThat(answered).as("lookups answered when the call ended").hasValue(0);
    assertThat(failure)
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> {
              assertThat(stop.reason()).isEqualTo(StopReason.DEADLINE);
              assertThat(stop).hasMessageContaining("the request was not processed");
              assertThat(stop).hasCauseInstanceOf(LookupDeadline.Exceeded.class);
            });
    assertThat(server.getRequestCount()).isZero();
  }

  /**
   * The bounded resolver is one object per client resolver: OkHttp's pool, which tells addresses
   * apart by their resolver, keeps reusing a connection across calls through the interceptor.
   */
  @Test
  void callsThroughTheInterceptorKeepReusingTheirConnection() throws Exception {
    answer.countDown(); // the resolver answers at once
    server.enqueue(new MockResponse.Builder().code(201).body("charged").build());
    for (int i = 0; i < 2; i++) {
      Request charge =
          new Request.Builder()
              .url("http://slow-dns.test:" + server.getPort() + "/charges")
              .post(RequestBody.create("{\"amount\":" + i + "}", MediaType.get("application/json")))
              .build();
      http.newCall(charge).execute().close();
    }

    assertThat(server.takeRequest().getConnectionIndex()).isZero();
    assertThat(server.takeRequest().getConnectionIndex())
        .as("the second call's connection")
        .isZero();
  }
}
