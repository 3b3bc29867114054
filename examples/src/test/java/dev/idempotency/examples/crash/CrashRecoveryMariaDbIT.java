package dev.idempotency.examples.crash;

/**
 * The crash-recovery tests against MariaDB, through the MariaDB driver ({@code
 * IDEMPOTENCY_TEST_MARIADB_URL}).
 */
class CrashRecoveryMariaDbIT extends AbstractCrashRecoveryTest {
  @Override
  CrashDatabase database() {
    return CrashDatabase.MARIADB;
  }
}
