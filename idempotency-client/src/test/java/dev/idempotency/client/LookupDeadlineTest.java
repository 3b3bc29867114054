package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.UnknownHostException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Name lookups bounded by the attempt on the calling thread. */
class LookupDeadlineTest {
  @AfterEach
  void endAttempt() {
    LookupDeadline.end();
  }

  @Test
  void outsideAnAttemptTheLookupRunsOnTheCallingThread() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();

    String result =
        LookupDeadline.await(
            "api.example.com",
            () -> {
              ranOn.set(Thread.currentThread());
              return "127.0.0.1";
            });

    assertThat(result).isEqualTo("127.0.0.1");
    assertThat(ranOn).hasValue(Thread.currentThread());
  }

  @Test
  void theLookupsOwnFailurePropagatesUnchanged() {
    UnknownHostException unknown = new UnknownHostException("no.such.host");
    LookupDeadline.begin(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));

    Throwable thrown =
        catchThrowable(
            () ->
                LookupDeadline.await(
                    "no.such.host",
                    () -> {
                      throw unknown;
                    }));

    assertThat(thrown).isSameAs(unknown);
  }

  /** An attempt already over: the lookup is not waited for, and the failure says nothing left. */
  @Test
  void aLookupStillRunningAtTheAttemptsEndIsGivenUpOn() {
    CountDownLatch answer = new CountDownLatch(1);
    LookupDeadline.begin(System.nanoTime());

    Throwable thrown =
        catchThrowable(
            () ->
                LookupDeadline.await(
                    "slow.example.com",
                    () -> {
                      try {
                        answer.await(30, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      return "127.0.0.1";
                    }));
    answer.countDown();

    assertThat(thrown)
        .isInstanceOf(LookupDeadline.Exceeded.class)
        .hasMessageContaining("slow.example.com")
        .hasMessageContaining("the request was never sent");
    assertThat(RetryPolicy.ofDefaults().classify("PUT", false, thrown).isRetryable()).isTrue();
  }
}
