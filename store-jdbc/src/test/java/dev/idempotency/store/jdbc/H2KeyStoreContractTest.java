package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/** The TCK against {@link TestDatabases#H2}, time judged by the TCK's controlled clock. */
class H2KeyStoreContractTest extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }
}
