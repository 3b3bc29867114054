package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The JDBC store's own tests against {@link TestDatabases#MARIADB_CONNECTOR_J_AFFECTED_ROWS},
 * claiming with MySQL's statement: a replay or a takeover reads the row in a second statement
 * there.
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
  int replayRoundTrips() {
    return 2;
  }

  /** MySQL's claim statement, the decision in the insert id, run on MariaDB. */
  @Override
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder.mysqlClaimStatement();
  }

  @Override
  boolean losingClaimsWrite() {
    return true;
  }
}
