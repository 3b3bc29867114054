package dev.idempotency.client.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.client.LookupDeadline;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.RecordingLogger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A name lookup slower than the deadline: a resolver made slow by the test (it answers only when
 * the test lets it, deaf to interrupts as a blocked {@code getaddrinfo} is), under a 400 ms
 * deadline. The call must end at the deadline, while the lookup still waits, and never reach the
 * server.
 */
class SlowDnsTest {
  private final CountDownLatch answer = new CountDownLatch(1);
  private final AtomicInteger answered = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private HttpServer server;
  private CloseableHttpClient http;

  private final DnsResolver slow =
      new DnsResolver() {
        @Override
        public InetAddress[] resolve(String host) {
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
          return new InetAddress[] {InetAddress.getLoopbackAddress()};
        }

        @Override
        public String resolveCanonicalHostname(String host) {
          return host;
        }
      };

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          exchange.sendResponseHeaders(201, -1);
          exchange.close();
        });
    server.start();
    RetryPolicy policy =
        RetryPolicy.builder()
            .deadline(Duration.ofMillis(400))
            .attemptTimeout(Duration.ofMillis(400))
            .environment(
                RetryEnvironment.system().withSleeper(d -> {}).withLogger(new RecordingLogger()))
            .build();
    http =
        IdempotentRetryExec.of(policy)
            .installOn(
                HttpClients.custom()
                    .setConnectionManager(
                        PoolingHttpClientConnectionManagerBuilder.create()
                            .setDnsResolver(DeadlineDnsResolver.wrap(slow))
                            .build()))
            .build();
  }

  @AfterEach
  void stop() {
    answer.countDown();
    http.close(CloseMode.IMMEDIATE);
    server.stop(0);
  }

  @Test
  void aSlowLookupEndsTheCallAtItsDeadlineAndNothingIsSent() {
    HttpPost charge =
        new HttpPost("http://slow-dns.test:" + server.getAddress().getPort() + "/charges");
    charge.setEntity(new StringEntity("{\"amount\":100}", ContentType.APPLICATION_JSON));

    Throwable failure = catchThrowable(() -> http.execute(charge, Exchange::of));

    assertThat(answered).as("lookups answered when the call ended").hasValue(0);
    assertThat(failure)
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> {
              assertThat(stop.reason()).isEqualTo(StopReason.DEADLINE);
              assertThat(stop).hasMessageContaining("the request was not processed");
              assertThat(stop).hasRootCauseInstanceOf(LookupDeadline.Exceeded.class);
            });
    assertThat(requests).hasValue(0);
  }
}
