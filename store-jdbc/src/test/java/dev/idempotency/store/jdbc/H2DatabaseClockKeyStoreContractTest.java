package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against {@link TestDatabases#H2}, time judged by the database clock with short real
 * leases.
 */
class H2DatabaseClockKeyStoreContractTest extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  @Override
  ClockSource clockSource() {
    return ClockSource.DATABASE;
  }
}
