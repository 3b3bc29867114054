package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The one-transaction mode on {@link TestDatabases#MARIADB_CONNECTOR_J} (REPEATABLE READ). */
class MariaDbOneTransactionJdbcIT extends AbstractOneTransactionJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.MARIADB_CONNECTOR_J;
  }

  @Override
  String killSessionOf(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
      rs.next();
      return "KILL CONNECTION " + rs.getLong(1);
    }
  }
}
