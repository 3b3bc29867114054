package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store that runs a one-transaction request's work again after a retryable abort: over HTTP the
 * application runs once (a container's filter chain cannot be re-run), and the request is answered
 * 503 with nothing committed. The store here stands in for the database's abort, which a test
 * cannot provoke on demand; the rollback itself is tested on real databases by the store's tests.
 */
class OneTransactionRerunTest {
  private static final EndpointRule ORDERS =
      EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST").inOneTransaction();

  @Test
  void aSecondRunOfTheApplicationIsRefusedAndAnswered503() throws Exception {
    AbortingOnceStore store = new AbortingOnceStore();
    AtomicInteger runs = new AtomicInteger();
    TransactionalDownstream app =
        new TransactionalDownstream() {
          @Override
          public StoredResponse runInTransaction(byte[] body, Object transaction) {
            runs.incrementAndGet();
            return StoredResponse.of(201, Map.of("Content-Type", List.of("text/plain")), body);
          }

          @Override
          public StoredResponse run(byte[] body, Execution execution) {
            throw new AssertionError("a rule in one transaction runs runInTransaction");
          }
        };
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store.proxy()).build()) {
      IdempotencyHttp http = IdempotencyHttp.builder(engine).endpoint(ORDERS).build();

      HttpResult result = http.handle(FakeRequest.post("/orders", "k-1", "{}"), app);

      assertThat(runs).as("application runs in one request").hasValue(1);
      assertThat(store.workCalls).as("the store asked for a second run").hasValue(2);
      assertThat(result).isInstanceOf(HttpResult.Respond.class);
      StoredResponse answer = ((HttpResult.Respond) result).response();
      assertThat(answer.status()).isEqualTo(503);
      assertThat(answer.firstHeader("Retry-After")).isPresent();
      assertThat(answer.bodyAsUtf8()).contains("idempotency_store_unavailable");
      assertThat(store.committed).as("commits").hasValue(0);
    }
  }

  /**
   * Declares {@code ONE_TRANSACTION}; its {@code claimAndComplete} claims a fresh key, runs the
   * work, discards that run as a database abort would, runs it again, and commits only if the
   * second run returns. Any other call fails the test.
   */
  private static final class AbortingOnceStore {
    final AtomicInteger workCalls = new AtomicInteger();
    final AtomicInteger committed = new AtomicInteger();

    @SuppressWarnings("unchecked")
    KeyStore proxy() {
      return (KeyStore)
          Proxy.newProxyInstance(
              KeyStore.class.getClassLoader(),
              new Class<?>[] {TransactionalKeyStore.class},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "capabilities" ->
                        Set.of(StoreCapability.TRANSACTIONAL, StoreCapability.ONE_TRANSACTION);
                    case "toString" -> "a store that aborts the first run";
                    case "transactionType" -> Object.class;
                    case "maxResponseBytes" -> Long.MAX_VALUE;
                    case "claimAndComplete" ->
                        claimAndComplete((OneTransactionWork<Object>) args[1]);
                    default -> throw new AssertionError("the store was called: " + method);
                  });
    }

    private OneTransactionOutcome claimAndComplete(OneTransactionWork<Object> work)
        throws Exception {
      ClaimOutcome.Claimed claim = ClaimOutcome.Claimed.fresh(FenceToken.of(1));
      workCalls.incrementAndGet();
      work.run(new Object(), claim); // this transaction "aborted": its run is discarded
      workCalls.incrementAndGet();
      StoredResponse response = work.run(new Object(), claim);
      committed.incrementAndGet();
      return new OneTransactionOutcome.Committed(claim, response);
    }
  }
}
