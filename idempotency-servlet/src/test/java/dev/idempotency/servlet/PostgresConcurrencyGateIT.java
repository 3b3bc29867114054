package dev.idempotency.servlet;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;

/**
 * The concurrency gate over Jetty with the JDBC store on the PostgreSQL test server ({@code
 * IDEMPOTENCY_TEST_PG_*}; skipped locally, failed in CI, when unset). Its own table, so other
 * modules' tests never interfere.
 */
class PostgresConcurrencyGateIT extends ConcurrencyGateContract {
  private HikariDataSource pool;

  @Override
  protected KeyStore newStore() {
    pool = TestDatabases.POSTGRES.pool(TestDatabases.POSTGRES.url(), 16);
    return JdbcKeyStore.builder(pool)
        .tableName("servlet_gate_records")
        .createSchemaIfMissing()
        .build();
  }

  @Override
  protected void closeStore() {
    if (pool != null) {
      pool.close();
    }
  }
}
