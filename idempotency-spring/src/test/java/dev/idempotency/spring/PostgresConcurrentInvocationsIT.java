package dev.idempotency.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import org.junit.jupiter.api.AfterEach;

/**
 * The concurrent deliveries on the JDBC store over the PostgreSQL test server ({@code
 * IDEMPOTENCY_TEST_PG_*}), in a table of its own; every test uses a new event id.
 */
class PostgresConcurrentInvocationsIT extends ConcurrentInvocationsContract {
  HikariDataSource dataSource;

  @Override
  KeyStore store() {
    dataSource = TestDatabases.POSTGRES.pool(TestDatabases.POSTGRES.url(), 16);
    return JdbcKeyStore.builder(dataSource)
        .tableName("spring_method_records")
        .createSchemaIfMissing()
        .build();
  }

  @AfterEach
  void closePool() {
    if (dataSource != null) {
      dataSource.close();
    }
  }
}
