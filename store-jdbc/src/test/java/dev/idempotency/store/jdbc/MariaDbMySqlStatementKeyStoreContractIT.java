package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against MariaDB claiming with MySQL's statement (the decision in the insert id, as on a
 * server without {@code RETURNING}), through {@link
 * TestDatabases#MARIADB_CONNECTOR_J_AFFECTED_ROWS}: the driver setting under which that statement's
 * update counts differ most.
 */
class MariaDbMySqlStatementKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J_AFFECTED_ROWS;
  }

  @Override
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder.mysqlClaimStatement();
  }
}
