package dev.idempotency.store.jdbc;

/** The TCK's transactional rules against {@link TestDatabases#MARIADB_DRIVER}. */
class MariaDbDriverTransactionalKeyStoreContractIT extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_DRIVER;
  }
}
