package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The JDBC store's own tests against {@link TestDatabases#MARIADB_SA_DRIVER}: as through the
 * MariaDB driver.
 */
class MariaDbSimultaneousAssignmentJdbcKeyStoreIT extends MariaDbDriverJdbcKeyStoreIT {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_SA_DRIVER;
  }
}
