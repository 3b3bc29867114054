package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** H2 has no optimistic one-transaction path: the builder refuses the setting there. */
class H2OptimisticRefusedTest {
  @Test
  @Timeout(30)
  void theBuilderRefusesOptimisticOneTransactionOnH2() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:optimistic_refused;DB_CLOSE_DELAY=-1");
    assertThatThrownBy(
            () ->
                JdbcKeyStore.builder(h2)
                    .createSchemaIfMissing()
                    .optimisticOneTransaction(true)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("H2");
  }
}
