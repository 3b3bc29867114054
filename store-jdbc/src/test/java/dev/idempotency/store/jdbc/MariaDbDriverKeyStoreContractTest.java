package dev.idempotency.store.jdbc;

/** The TCK against {@link TestDatabases#MARIADB_DRIVER}, time judged by the TCK's controlled clock. */
class MariaDbDriverKeyStoreContractTest extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_DRIVER;
  }
}
