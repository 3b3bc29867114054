package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** {@link AbstractClaimReadRaceTest} against {@link TestDatabases#H2}. */
class H2ClaimReadRaceTest extends AbstractClaimReadRaceTest {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }
}
