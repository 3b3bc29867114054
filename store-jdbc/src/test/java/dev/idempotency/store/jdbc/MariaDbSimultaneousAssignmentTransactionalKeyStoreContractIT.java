package dev.idempotency.store.jdbc;

/** The TCK's transactional rules against {@link TestDatabases#MARIADB_SA_DRIVER}. */
class MariaDbSimultaneousAssignmentTransactionalKeyStoreContractIT extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_SA_DRIVER;
  }
}
