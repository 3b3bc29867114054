package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyKeyInFlightException;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.Billing.Invoice;
import dev.idempotency.spring.Billing.OrderPaid;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * N = 32 concurrent deliveries of one event to an {@code @Idempotent} consumer: the body runs once
 * and every delivery ends with its result. One subclass per store. No assertion depends on timing:
 * the held winner keeps the key until the 31 others have their answers, so a claim that is not
 * atomic shows as a second run (and as fewer than 31 in-flight answers).
 */
abstract class ConcurrentInvocationsContract {
  static final int N = 32;

  final ExecutorService pool = Executors.newFixedThreadPool(N);
  AnnotationConfigApplicationContext context;

  /** The store under test, new for each test. */
  abstract KeyStore store() throws Exception;

  Billing start(InFlightPolicy inFlight) throws Exception {
    KeyStore store = store();
    context = new AnnotationConfigApplicationContext();
    context.registerBean(DefaultAdvisorAutoProxyCreator.class);
    context.registerBean(
        IdempotencyEngine.class,
        () ->
            IdempotencyEngine.builder(store)
                .config(IdempotencyConfig.builder().inFlightPolicy(inFlight).build())
                .build());
    context.registerBean(
        IdempotentMethods.class,
        () -> IdempotentMethods.builder(context.getBean(IdempotencyEngine.class)).build());
    context.registerBean(Billing.class);
    context.refresh();
    return context.getBean(Billing.class);
  }

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    if (context != null) {
      context.close();
    }
  }

  static OrderPaid delivery(String eventId, int n) {
    return new OrderPaid(eventId, "order-4711", 4200, "delivery " + n);
  }

  @Test
  void aHeldWinnerRunsTheBodyOnceAndTheOthersAreToldToComeBackThenReplayIt() throws Exception {
    Billing billing = start(InFlightPolicy.reject());
    String eventId = UUID.randomUUID().toString();
    CountDownLatch gate = new CountDownLatch(1);
    billing.hold(gate);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger inFlight = new AtomicInteger();
    CountDownLatch othersAnswered = new CountDownLatch(N - 1);
    List<Future<Invoice>> calls = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      int n = i;
      calls.add(
          pool.submit(
              () -> {
                go.await();
                try {
                  return billing.onOrderPaid(delivery(eventId, n));
                } catch (IdempotencyKeyInFlightException e) {
                  inFlight.incrementAndGet();
                  othersAnswered.countDown();
                  return null;
                }
              }));
    }
    go.countDown();
    boolean allOthersAnswered = othersAnswered.await(30, TimeUnit.SECONDS);
    gate.countDown();

    assertThat(allOthersAnswered).as("the 31 others got the in-flight answer").isTrue();
    List<Invoice> results = new ArrayList<>();
    for (Future<Invoice> call : calls) {
      Invoice result = call.get(30, TimeUnit.SECONDS);
      if (result != null) {
        results.add(result);
      }
    }
    assertThat(billing.runs()).isEqualTo(1);
    assertThat(inFlight).hasValue(N - 1);
    Invoice winner = results.get(0);
    assertThat(results).containsExactly(winner);
    // each of them retries, as its broker would redeliver: the replay, and no second run
    for (int i = 0; i < N - 1; i++) {
      assertThat(billing.onOrderPaid(delivery(eventId, N + i))).isEqualTo(winner);
    }
    assertThat(billing.runs()).isEqualTo(1);
  }

  @Test
  void withTheBoundedWaitEveryDeliveryGetsTheOneResult() throws Exception {
    Billing billing = start(InFlightPolicy.waitUpTo(Duration.ofSeconds(30), Duration.ofMillis(5)));
    String eventId = UUID.randomUUID().toString();
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Invoice>> calls = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      int n = i;
      calls.add(
          pool.submit(
              () -> {
                go.await();
                return billing.onOrderPaid(delivery(eventId, n));
              }));
    }
    go.countDown();

    List<Invoice> results = new ArrayList<>();
    for (Future<Invoice> call : calls) {
      results.add(call.get(60, TimeUnit.SECONDS));
    }
    assertThat(billing.runs()).isEqualTo(1);
    assertThat(results).hasSize(N).containsOnly(new Invoice("INV-1", "order-4711", 4200));
  }
}
