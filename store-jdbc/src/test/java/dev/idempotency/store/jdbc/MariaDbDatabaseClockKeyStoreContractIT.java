package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against {@link TestDatabases#MARIADB_CONNECTOR_J}, time judged by the database clock with
 * short real leases.
 */
class MariaDbDatabaseClockKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J;
  }

  @Override
  ClockSource clockSource() {
    return ClockSource.DATABASE;
  }
}
