package dev.idempotency.servlet;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;

/**
 * The concurrency gate over Jetty with the JDBC store on embedded H2 (a pool of 16 connections).
 */
class H2ConcurrencyGateTest extends ConcurrencyGateContract {
  private HikariDataSource pool;

  @Override
  protected KeyStore newStore() {
    pool = TestDatabases.H2.pool(TestDatabases.H2.url(), 16);
    return JdbcKeyStore.builder(pool)
        .tableName("servlet_gate_records")
        .createSchemaIfMissing()
        .build();
  }

  @Override
  protected void closeStore() {
    pool.close();
  }
}
