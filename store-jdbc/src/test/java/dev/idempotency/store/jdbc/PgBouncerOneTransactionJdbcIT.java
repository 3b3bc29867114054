package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The one-transaction mode against PostgreSQL through PgBouncer in transaction pooling mode, with
 * every test of the direct connection: the transaction-scoped advisory lock, the statement
 * timeouts, a session killed mid-transaction, and PostgreSQL's races (a two-commit claim made from
 * inside the work, requests at {@code SERIALIZABLE}).
 *
 * <p>Its pools at another isolation level set it per transaction ({@link PerTransactionIsolation}):
 * a level set on the pool's connections is a session setting, which PgBouncer hands on with the
 * server connection to other clients, and a later test's one-transaction claim then ran at {@code
 * SERIALIZABLE} without asking for it.
 */
class PgBouncerOneTransactionJdbcIT extends PostgresOneTransactionJdbcIT {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES_PGBOUNCER;
  }

  @Override
  DataSource isolatedPool(int size, String isolation) {
    return new PerTransactionIsolation(newPool(size, null), isolation);
  }

  /**
   * The per-transaction level holds in every transaction of a connection, and none of it stays on
   * the server connections: afterwards every transaction of the default pool, whichever server
   * connection PgBouncer gives it, runs at the server's default.
   */
  @Test
  void aPerTransactionLevelHoldsForEachTransactionAndLeavesNoServerConnectionAtIt()
      throws SQLException {
    DataSource serializable = isolatedPool(4, "TRANSACTION_SERIALIZABLE");
    try (Connection c = serializable.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 3; i++) {
        assertThat(isolationOf(c)).as("transaction %s", i).isEqualTo("serializable");
        c.commit();
      }
      c.setAutoCommit(true);
    }
    for (int i = 0; i < 20; i++) {
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(false);
        assertThat(isolationOf(c)).as("a default transaction, %s", i).isEqualTo("read committed");
        c.rollback();
      }
    }
  }

  private static String isolationOf(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('transaction_isolation')")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
