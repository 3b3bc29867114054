package dev.idempotency.examples.bootcrash;

/**
 * {@link AbstractBootCrashIT} on H2 in file mode, shared by the test and its workers (AUTO_SERVER).
 */
class BootCrashH2FileIT extends AbstractBootCrashIT {
  @Override
  Database database() {
    return Database.H2_FILE;
  }
}
