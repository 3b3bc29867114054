package dev.idempotency.store.jdbc;

/** {@link AbstractLeaseKeepingJdbcTest} on PostgreSQL. */
class PostgresLeaseKeepingJdbcIT extends AbstractLeaseKeepingJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }
}
