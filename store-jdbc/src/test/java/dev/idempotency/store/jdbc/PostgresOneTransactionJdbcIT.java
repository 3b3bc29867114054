package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The one-transaction mode on {@link TestDatabases#POSTGRES}. */
class PostgresOneTransactionJdbcIT extends AbstractOneTransactionJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }

  @Override
  String killSessionOf(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return "SELECT pg_terminate_backend(" + rs.getInt(1) + ")";
    }
  }
}
