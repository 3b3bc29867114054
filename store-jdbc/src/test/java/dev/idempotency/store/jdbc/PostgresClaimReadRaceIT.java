package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** {@link AbstractClaimReadRaceTest} against {@link TestDatabases#POSTGRES}. */
class PostgresClaimReadRaceIT extends AbstractClaimReadRaceTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }
}
