package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** {@link AbstractClaimReadRaceTest} against {@link TestDatabases#MARIADB_DRIVER}. */
class MariaDbDriverClaimReadRaceIT extends AbstractClaimReadRaceTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_DRIVER;
  }
}
