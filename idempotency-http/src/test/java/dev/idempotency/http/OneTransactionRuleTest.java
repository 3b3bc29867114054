package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.testing.DelegatingStore;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How a rule's lifecycle is decided (chosen by name, or by the store when it chose none), and the
 * misconfigurations of an endpoint rule in one transaction, refused before any request is claimed.
 * Its runs are tested over Jetty with real databases ({@code idempotency-servlet}'s {@code
 * OneTransactionOverHttpContract}).
 */
class OneTransactionRuleTest {
  private static final EndpointRule ORDERS =
      EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST").inOneTransaction();

  /** The setting keeps the rule's methods, path and requirement, and says so. */
  @Test
  void inOneTransactionKeepsTheRestOfTheRule() {
    EndpointRule plain = EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST");
    assertThat(plain.runsInOneTransaction()).isFalse();
    assertThat(ORDERS.runsInOneTransaction()).isTrue();
    assertThat(ORDERS.methods()).isEqualTo(plain.methods());
    assertThat(ORDERS.pathPattern()).isEqualTo(plain.pathPattern());
    assertThat(ORDERS.requirement()).isEqualTo(plain.requirement());
    assertThat(ORDERS).hasToString(plain + " in one transaction");
  }

  /** stepped() keeps the rest of the rule too, and the last choice wins. */
  @Test
  void steppedKeepsTheRestOfTheRuleAndTheLastChoiceWins() {
    EndpointRule plain = EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST");
    assertThat(plain.stepped().runsInOneTransaction()).isFalse();
    assertThat(plain.stepped()).hasToString(plain + " stepped");
    assertThat(ORDERS.stepped().runsInOneTransaction()).isFalse();
    assertThat(plain.stepped().inOneTransaction().runsInOneTransaction()).isTrue();
  }

  /**
   * A rule that chose no lifecycle runs in one transaction where the store declares {@code
   * ONE_TRANSACTION}, and stepped where it does not; one that chose stepped stays stepped. The
   * handler's own default rule (no rule added) is decided the same way.
   */
  @Test
  void aRuleThatChoseNoLifecycleRunsInOneTransactionWhereTheStoreCan() {
    EndpointRule plain = EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST");
    try (IdempotencyEngine transactional =
            IdempotencyEngine.builder(oneTransactionStore()).build();
        IdempotencyEngine inMemory = IdempotencyEngine.builder(new InMemoryKeyStore()).build()) {
      assertThat(IdempotencyHttp.builder(transactional).endpoint(plain).build().endpoints())
          .singleElement()
          .satisfies(r -> assertThat(r.runsInOneTransaction()).isTrue());
      assertThat(IdempotencyHttp.builder(transactional).build().endpoints())
          .singleElement()
          .satisfies(r -> assertThat(r.runsInOneTransaction()).isTrue());
      assertThat(
              IdempotencyHttp.builder(transactional).endpoint(plain.stepped()).build().endpoints())
          .singleElement()
          .satisfies(r -> assertThat(r.runsInOneTransaction()).isFalse());
      assertThat(IdempotencyHttp.builder(inMemory).endpoint(plain).build().endpoints())
          .singleElement()
          .satisfies(r -> assertThat(r).hasToString(plain + " stepped"));
    }
  }

  /**
   * A rule in one transaction only by default, met by an adapter that cannot hand the application
   * the transaction: the request runs stepped (the application gets an Execution), not refused.
   */
  @Test
  void aPlainDownstreamRunsARuleInOneTransactionByDefaultStepped() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    Downstream plain =
        (body, execution) -> {
          runs.incrementAndGet();
          assertThat(execution.recordId().key().value()).isEqualTo("k-1");
          return StoredResponse.of(201, Map.of("Content-Type", List.of("text/plain")), body);
        };
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(new OneTransactionInMemory()).build()) {
      IdempotencyHttp http =
          IdempotencyHttp.builder(engine)
              .endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST"))
              .build();

      HttpResult first = http.handle(FakeRequest.post("/orders", "k-1", "{}"), plain);
      HttpResult retry = http.handle(FakeRequest.post("/orders", "k-1", "{}"), plain);

      assertThat(first).isInstanceOf(HttpResult.Respond.class);
      assertThat(((HttpResult.Respond) retry).response().status()).isEqualTo(201);
      assertThat(runs).as("application runs").hasValue(1);
    }
  }

  /**
   * A store without {@code ONE_TRANSACTION} (the in-memory one) cannot serve the rule: refused as
   * the handler is configured, naming the setting and the capability.
   */
  @Test
  void aStoreWithoutTheCapabilityIsRefusedNamingTheSetting() {
    try (IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryKeyStore()).build()) {
      IdempotencyHttpBuilder builder = IdempotencyHttp.builder(engine);
      assertThatThrownBy(() -> builder.endpoint(ORDERS))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("EndpointRule.inOneTransaction()")
          .hasMessageContaining("StoreCapability.ONE_TRANSACTION")
          .hasMessageContaining("InMemoryKeyStore");
    }
  }

  /**
   * An adapter whose application cannot receive the transaction is refused before the body is read
   * and before the store is called (the store fails the test on any call but its capabilities).
   */
  @Test
  void aPlainDownstreamIsRefusedBeforeAnythingIsReadOrClaimed() {
    AtomicInteger storeCalls = new AtomicInteger();
    KeyStore transactional =
        (KeyStore)
            Proxy.newProxyInstance(
                KeyStore.class.getClassLoader(),
                new Class<?>[] {TransactionalKeyStore.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("capabilities")) {
                    return Set.of(StoreCapability.ONE_TRANSACTION);
                  }
                  if (method.getName().equals("toString")) {
                    return "a store that declares ONE_TRANSACTION";
                  }
                  if (method.getName().equals("maxResponseBytes")) {
                    return Long.MAX_VALUE; // a property of the store, not a call to it
                  }
                  storeCalls.incrementAndGet();
                  throw new AssertionError("the store was called: " + method.getName());
                });
    AtomicInteger runs = new AtomicInteger();
    Downstream plain =
        (body, execution) -> {
          runs.incrementAndGet();
          return StoredResponse.of(200, Map.of("Content-Type", List.of("text/plain")), body);
        };
    try (IdempotencyEngine engine = IdempotencyEngine.builder(transactional).build()) {
      IdempotencyHttp http = IdempotencyHttp.builder(engine).endpoint(ORDERS).build();
      FakeRequest request = FakeRequest.post("/orders", "k-1", "{}");

      assertThatThrownBy(() -> http.handle(request, plain))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("inOneTransaction()")
          .hasMessageContaining("TransactionalDownstream");
      assertThat(request.bodyReads).as("body reads").isZero();
      assertThat(storeCalls).as("store calls").hasValue(0);
      assertThat(runs).as("application runs").hasValue(0);
    }
  }

  /**
   * The in-memory store, declaring {@code ONE_TRANSACTION}: enough for a handler to decide a rule's
   * lifecycle, and for stepped requests; a request in one transaction fails the test.
   */
  private static final class OneTransactionInMemory extends DelegatingStore
      implements TransactionalKeyStore<Object> {
    OneTransactionInMemory() {
      super(new InMemoryKeyStore());
    }

    @Override
    public Set<StoreCapability> capabilities() {
      return Set.of(StoreCapability.TRANSACTIONAL, StoreCapability.ONE_TRANSACTION);
    }

    @Override
    public Class<Object> transactionType() {
      return Object.class;
    }

    @Override
    public <R> R inPhase(
        RecordId id,
        FenceToken fence,
        RecoveryPoint next,
        Instant now,
        Duration lease,
        TransactionalWork<Object, R> work) {
      throw new AssertionError("no phase was expected");
    }

    @Override
    public StoredResponse completeWith(
        RecordId id,
        FenceToken fence,
        Instant now,
        TransactionalWork<Object, StoredResponse> work) {
      throw new AssertionError("no completion with business writes was expected");
    }
  }

  private static KeyStore oneTransactionStore() {
    return new OneTransactionInMemory();
  }
}
