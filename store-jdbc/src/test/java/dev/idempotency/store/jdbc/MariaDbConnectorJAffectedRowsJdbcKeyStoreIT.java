package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The JDBC store's own tests against {@link TestDatabases#MARIADB_CONNECTOR_J_AFFECTED_ROWS},
 * claiming with MySQL's statement: a takeover reads the row it took in a third statement there.
 */
class MariaDbConnectorJAffectedRowsJdbcKeyStoreIT extends AbstractJdbcKeyStoreTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J_AFFECTED_ROWS;
  }

  @Override
  Dialect expectedDialect() {
    return Dialect.MYSQL;
  }

  @Override
  int takeoverRoundTrips() {
    return 3;
  }

  /** MySQL's claim statement, the decision in the insert id, run on MariaDB. */
  @Override
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder.mysqlClaimStatement();
  }
}
