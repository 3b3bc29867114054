package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** {@link AbstractLeaseKeepingJdbcTest} on PostgreSQL. */
class PostgresLeaseKeepingJdbcIT extends AbstractLeaseKeepingJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }
}
