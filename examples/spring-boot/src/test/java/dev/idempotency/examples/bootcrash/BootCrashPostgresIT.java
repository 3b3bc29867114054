package dev.idempotency.examples.bootcrash;

/** {@link AbstractBootCrashIT} on the PostgreSQL test server ({@code IDEMPOTENCY_TEST_PG_*}). */
class BootCrashPostgresIT extends AbstractBootCrashIT {
  @Override
  Database database() {
    return Database.POSTGRES;
  }
}
