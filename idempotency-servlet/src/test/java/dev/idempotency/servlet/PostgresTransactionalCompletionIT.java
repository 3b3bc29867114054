package dev.idempotency.servlet;

import dev.idempotency.testing.TestDatabases;

/**
 * A completion committed with the business writes, over Jetty, with the JDBC store on the
 * PostgreSQL test server ({@code IDEMPOTENCY_TEST_PG_*}; skipped locally, failed in CI, when
 * unset).
 */
class PostgresTransactionalCompletionIT extends TransactionalCompletionContract {
  @Override
  protected TestDatabases database() {
    return TestDatabases.POSTGRES;
  }
}
