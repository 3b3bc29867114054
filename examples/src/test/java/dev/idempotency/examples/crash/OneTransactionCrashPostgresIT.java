package dev.idempotency.examples.crash;

/** The one-transaction crash tests against PostgreSQL ({@code IDEMPOTENCY_TEST_PG_*}). */
class OneTransactionCrashPostgresIT extends AbstractOneTransactionCrashTest {
  @Override
  CrashDatabase database() {
    return CrashDatabase.POSTGRES;
  }
}
