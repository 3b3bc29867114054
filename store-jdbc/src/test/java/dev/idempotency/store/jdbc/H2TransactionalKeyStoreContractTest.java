package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK's transactional rules against {@link TestDatabases#H2}, time judged by the TCK's
 * controlled clock.
 */
class H2TransactionalKeyStoreContractTest extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }
}
