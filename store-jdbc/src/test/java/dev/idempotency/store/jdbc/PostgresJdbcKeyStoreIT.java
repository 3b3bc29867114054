package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The JDBC store's own tests against {@link TestDatabases#POSTGRES}. */
class PostgresJdbcKeyStoreIT extends AbstractJdbcKeyStoreTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }

  @Override
  Dialect expectedDialect() {
    return Dialect.POSTGRESQL;
  }
}
