package dev.idempotency.examples.crash;

/**
 * The one-transaction crash tests against MariaDB, through the MariaDB driver ({@code
 * IDEMPOTENCY_TEST_MARIADB_URL}).
 */
class OneTransactionCrashMariaDbIT extends AbstractOneTransactionCrashTest {
  @Override
  CrashDatabase database() {
    return CrashDatabase.MARIADB;
  }
}
