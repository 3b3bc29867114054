package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;

/**
 * The TCK against {@link TestDatabases#MARIADB_CONNECTOR_J}, time judged by the TCK's controlled
 * clock.
 */
class MariaDbConnectorJKeyStoreContractIT extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J;
  }
}
