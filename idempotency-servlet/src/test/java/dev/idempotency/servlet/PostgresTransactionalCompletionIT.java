package dev.idempotency.servlet;

import com.zaxxer.hikari.HikariDataSource;

/**
 * A completion committed with the business writes, over Jetty, with the JDBC store on the PostgreSQL test server
 * ({@code IDEMPOTENCY_TEST_PG_*}; skipped locally, failed in CI, when unset).
 */
class PostgresTransactionalCompletionIT extends TransactionalCompletionContract {
  @Override
  protected void connect(HikariDataSource pool) {
    pool.setJdbcUrl(TestEnv.require("IDEMPOTENCY_TEST_PG_URL"));
    pool.setUsername(TestEnv.require("IDEMPOTENCY_TEST_PG_USER"));
    pool.setPassword(TestEnv.require("IDEMPOTENCY_TEST_PG_PASSWORD"));
  }
}
