package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The TCK's transactional rules against {@link TestDatabases#MARIADB_SA_DRIVER}. */
class MariaDbSimultaneousAssignmentTransactionalKeyStoreContractIT
    extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_SA_DRIVER;
  }
}
