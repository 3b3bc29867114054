package dev.idempotency.examples.crash;

/** The one-transaction crash tests against H2 in file mode, {@code WRITE_DELAY=0}. */
class OneTransactionCrashH2FileIT extends AbstractOneTransactionCrashTest {
  @Override
  CrashDatabase database() {
    return CrashDatabase.H2_FILE;
  }
}
