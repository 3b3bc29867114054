package dev.idempotency.store.jdbc;

/** {@link AbstractLeaseKeepingJdbcTest} on PostgreSQL. */
class PostgresLeaseKeepingJdbcTest extends AbstractLeaseKeepingJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }
}
