package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK's transactional rules against {@link TestDatabases#H2}, time judged by the database clock
 * in real time.
 */
class H2DatabaseClockTransactionalKeyStoreContractTest extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  @Override
  ClockSource clockSource() {
    return ClockSource.DATABASE;
  }
}
