package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against {@link TestDatabases#POSTGRES}, time judged by the database clock with short real
 * leases.
 */
class PostgresDatabaseClockKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }

  @Override
  ClockSource clockSource() {
    return ClockSource.DATABASE;
  }
}
