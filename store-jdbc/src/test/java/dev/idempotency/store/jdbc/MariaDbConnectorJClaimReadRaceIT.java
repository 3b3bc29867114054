package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** {@link AbstractClaimReadRaceTest} against {@link TestDatabases#MARIADB_CONNECTOR_J}. */
class MariaDbConnectorJClaimReadRaceIT extends AbstractClaimReadRaceTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J;
  }
}
