package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The one-transaction suite on {@link TestDatabases#MARIADB_CONNECTOR_J} (REPEATABLE READ),
 * optimistic.
 */
class MariaDbOptimisticOneTransactionJdbcIT extends AbstractOneTransactionJdbcTest {
  private final MariaDbOneTransactionJdbcIT sessions = new MariaDbOneTransactionJdbcIT();

  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J;
  }

  @Override
  boolean optimistic() {
    return true;
  }

  @Override
  String killSessionOf(Connection c) throws SQLException {
    return sessions.killSessionOf(c);
  }
}
