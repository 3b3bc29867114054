package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyKeyInFlightException;
import dev.idempotency.core.IdempotencyKeyReusedException;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.Billing.Invoice;
import dev.idempotency.spring.Billing.OrderPaid;
import dev.idempotency.testing.DelegatingStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * {@code @Idempotent} methods in a plain Spring context over the in-memory store: replay, the
 * fingerprint, mismatch, release on exceptions (checked ones as declared), scopes, null and void
 * results, in-flight duplicates, an unreachable store, and the start-up refusals.
 */
class IdempotentMethodsTest {
  static final KeyStore STORE_DOWN =
      new DelegatingStore(new InMemoryKeyStore()) {
        @Override
        public ClaimOutcome claim(ClaimRequest request) {
          throw new StoreUnavailableException("the test's store is down");
        }
      };

  /** Which store and in-flight policy the next context's engine gets. */
  static volatile KeyStore store;

  static volatile InFlightPolicy inFlight = InFlightPolicy.reject();

  AnnotationConfigApplicationContext context;
  final ExecutorService pool = Executors.newCachedThreadPool();

  @Configuration(proxyBeanMethods = false)
  @Import(SpringContexts.Advised.class)
  static class App {
    @Bean
    IdempotencyEngine engine() {
      return IdempotencyEngine.builder(store)
          .config(
              IdempotencyConfig.builder()
                  .inFlightPolicy(inFlight)
                  .inFlightRetryAfter(Duration.ofSeconds(1))
                  .build())
          .build();
    }

    @Bean
    Billing billing() {
      return new Billing();
    }
  }

  Billing start(KeyStore keyStore) {
    store = keyStore;
    context = SpringContexts.start(App.class);
    return context.getBean(Billing.class);
  }

  Billing start() {
    return start(new InMemoryKeyStore());
  }

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    inFlight = InFlightPolicy.reject();
    if (context != null) {
      context.close();
    }
  }

  static OrderPaid event(String id, long amountCents, String deliveredAt) {
    return new OrderPaid(id, "order-4711", amountCents, deliveredAt);
  }

  @Test
  void aRedeliveryGetsTheStoredResultWithoutRunningTheBody() throws Exception {
    Billing billing = start();
    assertThat(AopUtils.isAopProxy(billing)).isTrue();

    Invoice first = billing.onOrderPaid(event("e1", 4200, "10:00"));
    Invoice second = billing.onOrderPaid(event("e1", 4200, "10:05"));

    assertThat(billing.runs()).isEqualTo(1);
    assertThat(first).isEqualTo(new Invoice("INV-1", "order-4711", 4200));
    // a replay is the stored JSON decoded into the return type: equal, not the same object
    assertThat(second).isEqualTo(first).isNotSameAs(first);
  }

  @Test
  void theResultIsStoredAsJsonUnderTheDefaultScope() throws Exception {
    Billing billing = start();

    billing.onOrderPaid(event("e1", 4200, "10:00"));

    StoredResponse stored =
        store
            .lookup(RecordId.of(IdempotentMethods.DEFAULT_SCOPE, "invoice-e1"))
            .orElseThrow()
            .response()
            .orElseThrow();
    assertThat(new String(stored.body(), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"value\":{\"number\":\"INV-1\",\"orderId\":\"order-4711\",\"amountCents\":4200}}");
  }

  @Test
  void theSameKeyWithAnotherAmountIsAMismatchAndDoesNotRun() throws Exception {
    Billing billing = start();
    billing.onOrderPaid(event("e1", 4200, "10:00"));

    assertThatThrownBy(() -> billing.onOrderPaid(event("e1", 9900, "10:00")))
        .isInstanceOf(IdempotencyKeyReusedException.class)
        .hasMessageContaining("invoice-e1");
    assertThat(billing.runs()).isEqualTo(1);
  }

  @Test
  void aGenericResultIsReplayedAsItsDeclaredType() {
    Billing billing = start();

    List<Invoice> first = billing.invoicesFor("acct-1", "k1");
    List<Invoice> replay = billing.invoicesFor("acct-1", "k1");

    assertThat(replay).isEqualTo(first);
    assertThat(replay.get(0)).isInstanceOf(Invoice.class);
    assertThat(billing.runs()).isEqualTo(1);
  }

  @Test
  void theSameKeyInAnotherScopeIsAnotherCall() {
    Billing billing = start();

    List<Invoice> alice = billing.invoicesFor("acct-alice", "k1");
    List<Invoice> bob = billing.invoicesFor("acct-bob", "k1");

    assertThat(billing.runs()).isEqualTo(2);
    assertThat(alice).isNotEqualTo(bob);
    assertThat(store.lookup(RecordId.of("acct-bob", "k1"))).isPresent();
  }

  @Test
  void voidAndNullResultsAreStoredAndReplayed() {
    Billing billing = start();

    billing.ping("p1");
    billing.ping("p1");
    assertThat(billing.nothing("n1")).isNull();
    assertThat(billing.nothing("n1")).isNull();

    assertThat(billing.runs()).isEqualTo(2);
    assertThat(store.lookup(RecordId.of("methods", "nothing-n1")).orElseThrow().state())
        .isEqualTo(KeyState.COMPLETE);
  }

  @Test
  void anUncheckedExceptionPropagatesAsThrownAndReleasesTheKey() throws IOException {
    Billing billing = start();
    IllegalStateException thrown = new IllegalStateException("the ledger said no");

    assertThat(catchThrowable(() -> billing.failing("f1", thrown, null))).isSameAs(thrown);
    assertThat(store.lookup(RecordId.of("methods", "failing-f1"))).isEmpty();
    assertThat(billing.failing("f1", thrown, null)).isEqualTo("ran 2");
  }

  @Test
  void aCheckedExceptionPropagatesAsDeclaredAndReleasesTheKey() throws IOException {
    Billing billing = start();
    IOException thrown = new IOException("the ledger is unreachable");

    assertThat(catchThrowable(() -> billing.failing("f2", null, thrown))).isSameAs(thrown);
    assertThat(billing.failing("f2", null, thrown)).isEqualTo("ran 2");
    assertThat(billing.failing("f2", null, thrown)).isEqualTo("ran 2");
  }

  @Test
  void aKeyThatIsNoValidKeyIsRefusedBeforeAnythingRuns() {
    Billing billing = start();

    assertThatThrownBy(() -> billing.byKey(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Billing.byKey(String)")
        .hasMessageContaining("gave null");
    assertThatThrownBy(() -> billing.byKey("x".repeat(256)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Billing.byKey(String)");
    assertThatThrownBy(() -> billing.byKey("with space"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(billing.runs()).isEqualTo(0);
  }

  @Test
  void anUnreachableStoreFailsClosedAndTheBodyDoesNotRun() {
    Billing billing = start(STORE_DOWN);

    assertThatThrownBy(() -> billing.onOrderPaid(event("e1", 4200, "10:00")))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(billing.runs()).isEqualTo(0);
  }

  @Test
  void aDuplicateWhileTheFirstRunsIsToldToComeBack() throws Exception {
    Billing billing = start();
    CountDownLatch gate = new CountDownLatch(1);
    billing.hold(gate);
    Future<Invoice> first = pool.submit(() -> billing.onOrderPaid(event("e1", 4200, "10:00")));
    assertThat(billing.awaitEntered()).isTrue();

    Throwable duplicate = catchThrowable(() -> billing.onOrderPaid(event("e1", 4200, "10:01")));
    gate.countDown();

    assertThat(duplicate)
        .isInstanceOfSatisfying(
            IdempotencyKeyInFlightException.class,
            e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(1)));
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new Invoice("INV-1", "order-4711", 4200));
    assertThat(billing.onOrderPaid(event("e1", 4200, "10:02"))).isEqualTo(first.get());
    assertThat(billing.runs()).isEqualTo(1);
  }

  @Test
  void withTheEnginesBoundedWaitADuplicateGetsTheFirstResult() throws Exception {
    inFlight = InFlightPolicy.waitUpTo(Duration.ofSeconds(20), Duration.ofMillis(10));
    Billing billing = start();
    CountDownLatch gate = new CountDownLatch(1);
    billing.hold(gate);
    Future<Invoice> first = pool.submit(() -> billing.onOrderPaid(event("e1", 4200, "10:00")));
    assertThat(billing.awaitEntered()).isTrue();
    AtomicBoolean waiting = new AtomicBoolean(true);
    Future<Invoice> duplicate =
        pool.submit(
            () -> {
              try {
                return billing.onOrderPaid(event("e1", 4200, "10:01"));
              } finally {
                waiting.set(false);
              }
            });

    assertThat(waiting).isTrue(); // the first still holds the key, so the duplicate cannot be done
    gate.countDown();

    assertThat(duplicate.get(20, TimeUnit.SECONDS)).isEqualTo(first.get(10, TimeUnit.SECONDS));
    assertThat(billing.runs()).isEqualTo(1);
  }

  // ---- start-up refusals: the context does not start, and says which method and why ----

  static class UnknownVariable {
    @Idempotent(key = "'invoice-' + #evnt.id")
    public String handle(OrderPaid event) {
      return event.id();
    }
  }

  static class Asynchronous {
    @Idempotent(key = "#id")
    public CompletableFuture<String> handle(String id) {
      return CompletableFuture.completedFuture(id);
    }
  }

  static class Unparsable {
    @Idempotent(key = "'invoice-' + ")
    public String handle(String id) {
      return id;
    }
  }

  static class TransactionalWithoutDataSource {
    @Idempotent(key = "#id", transactional = true)
    public String handle(String id) {
      return id;
    }
  }

  static class BadBean {
    static volatile Class<?> type;
  }

  @Configuration(proxyBeanMethods = false)
  @Import(SpringContexts.Advised.class)
  static class BadApp {
    @Bean
    IdempotencyEngine engine() {
      return IdempotencyEngine.builder(new InMemoryKeyStore()).build();
    }

    @Bean
    Object bad() throws ReflectiveOperationException {
      return BadBean.type.getDeclaredConstructor().newInstance();
    }
  }

  static Throwable startUpFailureWith(Class<?> bean) {
    BadBean.type = bean;
    Throwable failure = catchThrowable(() -> SpringContexts.start(BadApp.class).close());
    assertThat(failure).as("the context started").isNotNull();
    return SpringContexts.rootCause(failure);
  }

  @Test
  void anExpressionNamingNoParameterFailsTheStartUp() {
    assertThat(startUpFailureWith(UnknownVariable.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("UnknownVariable.handle(OrderPaid)")
        .hasMessageContaining("names #evnt, which is none of its parameters (event)");
  }

  @Test
  void anAsynchronousResultFailsTheStartUp() {
    assertThat(startUpFailureWith(Asynchronous.class))
        .hasMessageContaining("Asynchronous.handle(String)")
        .hasMessageContaining("java.util.concurrent.CompletableFuture");
  }

  @Test
  void anUnparsableExpressionFailsTheStartUp() {
    assertThat(startUpFailureWith(Unparsable.class))
        .hasMessageContaining("Unparsable.handle(String)")
        .hasMessageContaining("does not parse");
  }

  @Test
  void aTransactionalMethodWithoutADataSourceFailsTheStartUp() {
    assertThat(startUpFailureWith(TransactionalWithoutDataSource.class))
        .hasMessageContaining("TransactionalWithoutDataSource.handle(String)")
        .hasMessageContaining("transactionalDataSource");
  }
}
