package dev.idempotency.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import org.junit.jupiter.api.AfterEach;

/** The concurrent deliveries on the JDBC store over H2, through a pool of 16 connections. */
class H2ConcurrentInvocationsTest extends ConcurrentInvocationsContract {
  HikariDataSource dataSource;

  @Override
  KeyStore store() {
    dataSource = TestDatabases.H2.pool(TestDatabases.H2.url(), 16);
    return JdbcKeyStore.builder(dataSource).createSchemaIfMissing().build();
  }

  @AfterEach
  void closePool() {
    if (dataSource != null) {
      dataSource.close();
    }
  }
}
