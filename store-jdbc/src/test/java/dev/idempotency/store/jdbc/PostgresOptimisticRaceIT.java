package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The optimistic one-transaction arbitration on {@link TestDatabases#POSTGRES}. */
class PostgresOptimisticRaceIT extends AbstractOptimisticRaceTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }
}
