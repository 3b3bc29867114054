package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * {@link AbstractClaimReadRaceTest} against {@link
 * TestDatabases#MARIADB_CONNECTOR_J_AFFECTED_ROWS}, claiming with MySQL's statement (the decision
 * in the insert id).
 */
class MariaDbMySqlStatementClaimReadRaceIT extends AbstractClaimReadRaceTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J_AFFECTED_ROWS;
  }

  @Override
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder.mysqlClaimStatement();
  }
}
