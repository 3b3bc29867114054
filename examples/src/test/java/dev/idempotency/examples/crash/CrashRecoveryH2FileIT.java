package dev.idempotency.examples.crash;

/**
 * The crash-recovery tests against H2 in server-less file mode: a database file per test, opened by
 * each worker.
 */
class CrashRecoveryH2FileIT extends AbstractCrashRecoveryTest {
  @Override
  CrashDatabase database() {
    return CrashDatabase.H2_FILE;
  }
}
