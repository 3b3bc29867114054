package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against {@link TestDatabases#MARIADB_SA_CONNECTOR_J}: every statement right under
 * simultaneous assignment.
 */
class MariaDbSimultaneousAssignmentKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_SA_CONNECTOR_J;
  }
}
