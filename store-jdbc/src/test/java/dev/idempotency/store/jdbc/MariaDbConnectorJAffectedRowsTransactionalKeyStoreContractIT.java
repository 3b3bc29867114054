package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK's transactional rules against {@link TestDatabases#MARIADB_CONNECTOR_J_AFFECTED_ROWS},
 * claiming with MySQL's statement.
 */
class MariaDbConnectorJAffectedRowsTransactionalKeyStoreContractIT
    extends JdbcTransactionalKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J_AFFECTED_ROWS;
  }

  /** MySQL's claim statement, the decision in the insert id, run on MariaDB. */
  @Override
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder.mysqlClaimStatement();
  }
}
