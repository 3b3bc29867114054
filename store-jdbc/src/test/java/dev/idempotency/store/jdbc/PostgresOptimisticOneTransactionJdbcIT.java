package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;

/** The one-transaction suite on {@link TestDatabases#POSTGRES}, optimistic. */
class PostgresOptimisticOneTransactionJdbcIT extends AbstractOneTransactionJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }

  @Override
  boolean optimistic() {
    return true;
  }

  @Override
  String killSessionOf(Connection c) throws SQLException {
    return PostgresOneTransactionJdbcIT.terminateBackendOf(c);
  }
}
