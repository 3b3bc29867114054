package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * {@link Work#inOneTransaction} over a store without transactions: refused before anything runs,
 * with a message that names the capability. The mode itself is tested over a store that has it
 * ({@code store-jdbc}'s {@code AbstractOneTransactionJdbcTest}).
 */
class OneTransactionRefusalTest {
  @Test
  void aStoreWithoutTheCapabilityIsRefusedBeforeTheWorkRuns() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    AtomicInteger runs = new AtomicInteger();
    RecordId id = RecordId.of("acct-1", "k1");
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build()) {
      assertThatThrownBy(
              () ->
                  engine.execute(
                      id,
                      Fingerprint.of("r".getBytes(StandardCharsets.UTF_8)),
                      Work.inOneTransaction(
                          Object.class,
                          (Object tx) -> {
                            runs.incrementAndGet();
                            return StoredResponse.of(200, Map.of(), new byte[0]);
                          })))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("StoreCapability.TRANSACTIONAL");
    }
    Assertions.assertThat(runs).hasValue(0);
    Assertions.assertThat(store.lookup(id)).isEmpty();
  }
}
