package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The JDBC store's own tests against {@link TestDatabases#MARIADB_CONNECTOR_J}. */
class MariaDbConnectorJJdbcKeyStoreIT extends AbstractJdbcKeyStoreTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J;
  }

  @Override
  Dialect expectedDialect() {
    return Dialect.MYSQL;
  }
}
