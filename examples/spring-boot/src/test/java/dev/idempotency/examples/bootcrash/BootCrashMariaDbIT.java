package dev.idempotency.examples.bootcrash;

/**
 * {@link AbstractBootCrashIT} on the MariaDB test server ({@code IDEMPOTENCY_TEST_MARIADB_URL},
 * {@code IDEMPOTENCY_TEST_MYSQL_*}).
 */
class BootCrashMariaDbIT extends AbstractBootCrashIT {
  @Override
  Database database() {
    return Database.MARIADB;
  }
}
