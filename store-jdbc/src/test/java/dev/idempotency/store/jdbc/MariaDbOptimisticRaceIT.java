package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The optimistic one-transaction arbitration on {@link TestDatabases#MARIADB_CONNECTOR_J}. */
class MariaDbOptimisticRaceIT extends AbstractOptimisticRaceTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J;
  }
}
