package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The JDBC store's own tests against {@link TestDatabases#H2}. */
class H2JdbcKeyStoreTest extends AbstractJdbcKeyStoreTest {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  @Override
  Dialect expectedDialect() {
    return Dialect.H2;
  }

  @Override
  int replayRoundTrips() {
    return 1;
  }

  @Override
  boolean losingClaimsWrite() {
    return true;
  }
}
