package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The misconfigurations of an endpoint rule in one transaction, refused before any request is
 * claimed. Its runs are tested over Jetty with real databases ({@code idempotency-servlet}'s {@code
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
}
