package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK's transactional rules against {@link TestDatabases#MARIADB_CONNECTOR_J_AFFECTED_ROWS}.
 */
class MariaDbConnectorJAffectedRowsTransactionalKeyStoreContractIT
    extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J_AFFECTED_ROWS;
  }
}
