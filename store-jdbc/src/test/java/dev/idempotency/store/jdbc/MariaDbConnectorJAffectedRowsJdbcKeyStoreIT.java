package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The JDBC store's own tests against {@link TestDatabases#MARIADB_CONNECTOR_J_AFFECTED_ROWS}. */
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
}
