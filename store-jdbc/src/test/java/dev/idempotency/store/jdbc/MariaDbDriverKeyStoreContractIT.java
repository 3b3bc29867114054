package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against {@link TestDatabases#MARIADB_DRIVER}, time judged by the TCK's controlled clock.
 */
class MariaDbDriverKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_DRIVER;
  }
}
