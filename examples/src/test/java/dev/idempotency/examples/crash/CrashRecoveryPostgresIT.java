package dev.idempotency.examples.crash;

/** The crash-recovery tests against PostgreSQL ({@code IDEMPOTENCY_TEST_PG_*}). */
class CrashRecoveryPostgresIT extends AbstractCrashRecoveryTest {
  @Override
  CrashDatabase database() {
    return CrashDatabase.POSTGRES;
  }
}
