package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyKeyInFlightException;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An {@code @Idempotent} method reaches its claim's {@link Execution} through {@link
 * IdempotentMethods#currentExecution()}: one that runs past the engine's {@code maxOperationTime}
 * is told ({@link Execution#leaseLost()}) while its lease still holds, before a redelivery can take
 * it over, and stops before its side effect. The engine's clock is moved by hand: lease 30 s,
 * {@code maxOperationTime} 30 s, renewals every 50 ms of real time.
 */
class IdempotentMethodLeaseTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** A shipment: one side effect per key, unless the method was told to stop. */
  public static class Shipping {
    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger shipped = new AtomicInteger();
    final List<Execution> executions = new CopyOnWriteArrayList<>();
    final CountDownLatch firstEntered = new CountDownLatch(1);
    final CountDownLatch firstGoesOn = new CountDownLatch(1);
    volatile @Nullable Boolean firstWasToldWhenTheNextStarted;

    @Idempotent(key = "'ship-' + #id")
    public String ship(String id) throws InterruptedException {
      Execution execution = IdempotentMethods.currentExecution();
      int run = runs.incrementAndGet();
      executions.add(execution);
      if (run == 1) {
        firstEntered.countDown();
        if (!firstGoesOn.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never let the first run go on");
        }
      } else {
        firstWasToldWhenTheNextStarted = executions.get(0).leaseLost();
      }
      if (execution.leaseLost()) { // checked before the side effect
        throw new IllegalStateException("told to stop: " + id + " not shipped");
      }
      shipped.incrementAndGet();
      return "shipped " + id;
    }
  }

  /** A guarded method that calls another one. */
  public static class Dispatch {
    private final Shipping shipping;

    public Dispatch(Shipping shipping) {
      this.shipping = shipping;
    }

    /** The keys of the claim this method sees before and after the guarded method it calls. */
    @Idempotent(key = "'dispatch-' + #id")
    public List<String> dispatch(String id) throws InterruptedException {
      String before = IdempotentMethods.currentExecution().recordId().key().value();
      shipping.ship(id);
      String after = IdempotentMethods.currentExecution().recordId().key().value();
      return List.of(before, after);
    }
  }

  static volatile KeyStore store;
  static volatile Shipping target;
  static volatile MutableClock clock;
  static volatile CountDownLatch timedOut;

  @Configuration(proxyBeanMethods = false)
  @Import(SpringContexts.Advised.class)
  static class App {
    @Bean
    IdempotencyEngine engine() {
      CountDownLatch told = timedOut;
      return IdempotencyEngine.builder(store)
          .config(
              IdempotencyConfig.builder()
                  .clock(clock)
                  .lease(LEASE)
                  .heartbeatInterval(Duration.ofMillis(50))
                  .maxOperationTime(LEASE)
                  .listener(
                      event -> {
                        if (event instanceof IdempotencyEvent.OperationTimedOut) {
                          told.countDown();
                        }
                      })
                  .build())
          .build();
    }

    @Bean
    Shipping shipping() {
      return target;
    }

    @Bean
    Dispatch dispatch(Shipping shipping) {
      return new Dispatch(shipping);
    }
  }

  /** The engine's time of each renewal, as the store received them. */
  final BlockingQueue<Instant> renewals = new LinkedBlockingQueue<>();

  final ExecutorService pool = Executors.newCachedThreadPool();
  final AnnotationConfigApplicationContext context;

  /** The bean, for its state; {@link #proxy} for calls through the advisor. */
  final Shipping shipping = new Shipping();

  final Shipping proxy;

  IdempotentMethodLeaseTest() {
    clock = new MutableClock();
    timedOut = new CountDownLatch(1);
    store =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public Set<RecordId> heartbeatAll(
              Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
            Set<RecordId> refused = super.heartbeatAll(leases, now, lease);
            renewals.add(now);
            return refused;
          }
        };
    target = shipping;
    context = SpringContexts.start(App.class);
    proxy = context.getBean(Shipping.class);
  }

  @AfterEach
  void stop() throws InterruptedException {
    shipping.firstGoesOn.countDown();
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    context.close();
  }

  /**
   * Waits for two renewals at or after {@code at} on the engine's clock: the second begins after
   * the first has confirmed the lease to the engine.
   */
  void awaitRenewalsAt(Instant at) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (int seen = 0; seen < 2; ) {
      Instant renewed = renewals.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertThat(renewed).as("a renewal at or after %s", at).isNotNull();
      if (!renewed.isBefore(at)) {
        seen++;
      }
    }
  }

  /**
   * Runs the first delivery into its body, then moves the clock past {@code maxOperationTime} (40
   * s) in two steps, with a renewal between them, so that its lease holds until 50 s; returns once
   * the engine told it (the renewal after the second step stops renewing it).
   */
  Future<String> aFirstDeliveryRunningPastMaxOperationTime() throws Exception {
    Instant start = clock.instant();
    Future<String> first = pool.submit(() -> proxy.ship("s1"));
    assertThat(shipping.firstEntered.await(10, TimeUnit.SECONDS)).isTrue();
    clock.advance(Duration.ofSeconds(20));
    awaitRenewalsAt(start.plusSeconds(20)); // the lease now ends at 50 s
    clock.advance(Duration.ofSeconds(20));
    assertThat(timedOut.await(10, TimeUnit.SECONDS)).as("OperationTimedOut").isTrue();
    assertThat(shipping.executions.get(0).leaseLost()).isTrue();
    // told at 40 s while its lease holds until 50 s: no redelivery can take it over yet
    assertThatThrownBy(() -> proxy.ship("s1")).isInstanceOf(IdempotencyKeyInFlightException.class);
    return first;
  }

  @Test
  void aMethodThatChecksLeaseLostStopsBeforeItsSideEffect() throws Exception {
    Future<String> first = aFirstDeliveryRunningPastMaxOperationTime();

    shipping.firstGoesOn.countDown();

    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseMessage("told to stop: s1 not shipped");
    assertThat(shipping.shipped).hasValue(0);
    // it threw before any side effect: the key is released, and the redelivery ships once
    assertThat(proxy.ship("s1")).isEqualTo("shipped s1");
    assertThat(proxy.ship("s1")).isEqualTo("shipped s1");
    assertThat(shipping.shipped).hasValue(1);
    assertThat(shipping.runs).hasValue(2);
  }

  @Test
  void aRedeliveryTakesOverOnlyOnceTheMethodWasTold() throws Exception {
    Future<String> first = aFirstDeliveryRunningPastMaxOperationTime();

    clock.advance(Duration.ofSeconds(11)); // 51 s: the first's lease has lapsed
    String second = proxy.ship("s1");
    shipping.firstGoesOn.countDown();

    assertThat(second).isEqualTo("shipped s1");
    assertThat(shipping.firstWasToldWhenTheNextStarted).isTrue();
    assertThat(shipping.executions.get(1).isTakeover()).isTrue();
    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
        .hasRootCauseMessage("told to stop: s1 not shipped");
    assertThat(shipping.shipped).hasValue(1);
  }

  @Test
  void outsideAGuardedMethodThereIsNoExecution() throws InterruptedException {
    assertThatThrownBy(IdempotentMethods::currentExecution)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("@Idempotent");
    shipping.firstGoesOn.countDown();
    proxy.ship("s2");
    assertThatThrownBy(IdempotentMethods::currentExecution)
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aGuardedMethodCalledFromAnotherSeesItsOwnExecutionAndTheCallerGetsItsBack()
      throws InterruptedException {
    shipping.firstGoesOn.countDown();

    List<String> seen = context.getBean(Dispatch.class).dispatch("d1");

    assertThat(seen).containsExactly("dispatch-d1", "dispatch-d1");
    assertThat(shipping.executions.get(0).recordId().key().value()).isEqualTo("ship-d1");
  }
}
