package dev.idempotency.servlet;

import dev.idempotency.testing.TestDatabases;

/**
 * An endpoint rule in one transaction, over Jetty, with the JDBC store on the PostgreSQL test
 * server ({@code IDEMPOTENCY_TEST_PG_*}; skipped locally, failed in CI, when unset).
 */
class PostgresOneTransactionOverHttpIT extends OneTransactionOverHttpContract {
  @Override
  protected TestDatabases database() {
    return TestDatabases.POSTGRES;
  }
}
