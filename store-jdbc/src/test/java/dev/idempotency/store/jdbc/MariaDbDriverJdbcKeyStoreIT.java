package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The JDBC store's own tests against {@link TestDatabases#MARIADB_DRIVER}. */
class MariaDbDriverJdbcKeyStoreIT extends AbstractJdbcKeyStoreTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_DRIVER;
  }

  @Override
  Dialect expectedDialect() {
    return Dialect.MYSQL;
  }
}
