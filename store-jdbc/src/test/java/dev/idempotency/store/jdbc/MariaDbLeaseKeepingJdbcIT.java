package dev.idempotency.store.jdbc;

/** {@link AbstractLeaseKeepingJdbcTest} on MariaDB (MariaDB driver). */
class MariaDbLeaseKeepingJdbcIT extends AbstractLeaseKeepingJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_DRIVER;
  }
}
