package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;

/** The one-transaction mode on {@link TestDatabases#H2}. */
class H2OneTransactionJdbcTest extends AbstractOneTransactionJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  /**
   * None: {@code ABORT_SESSION} closes the whole in-memory database, and an embedded database ends
   * with the process that would have crashed.
   */
  @Override
  String killSessionOf(Connection c) {
    return null;
  }
}
