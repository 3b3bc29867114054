package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The TCK against {@link TestDatabases#POSTGRES}, time judged by the TCK's controlled clock. */
class PostgresKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }
}
