package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** {@link AbstractLeaseKeepingJdbcTest} on MariaDB (MariaDB driver). */
class MariaDbLeaseKeepingJdbcIT extends AbstractLeaseKeepingJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_DRIVER;
  }
}
