package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK's transactional rules against {@link TestDatabases#POSTGRES}, time judged by the TCK's
 * controlled clock.
 */
class PostgresTransactionalKeyStoreContractIT extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }
}
