package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.CompletionOutageGate;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The outage gate on PostgreSQL: an outage of the store while the responses are stored, shorter
 * than the lease, runs every key's work once. A server of the test's own frozen with {@code kill
 * -STOP} (the default run); every connection of the store's pools terminated again and again on the
 * shared server; and, to show that the gate can fail, a freeze longer than the lease.
 */
class PostgresCompletionOutageGateIT extends AbstractFrozenServerOutageGate {
  /**
   * The driver's timeouts for outages, in seconds: a connect, a login and a read that get no answer
   * fail within them, and the cancel of a timed-out statement does not wait 10 s for a frozen
   * server.
   */
  static final String TIMEOUTS =
      "connectTimeout=1&loginTimeout=2&socketTimeout=2&cancelSignalTimeout=1";

  PostgresCompletionOutageGateIT() {
    super("pg", TIMEOUTS, OwnDatabaseServer::postgres);
  }

  @Test
  @Tag("slow")
  void connectionsTerminatedThroughHalfTheLeaseRunEveryKeyOnce() throws Exception {
    List<String> db =
        TestDatabases.require(
            "IDEMPOTENCY_TEST_PG_URL", "IDEMPOTENCY_TEST_PG_USER", "IDEMPOTENCY_TEST_PG_PASSWORD");
    String app = "idem-gate-" + ProcessHandle.current().pid();
    String url = db.get(0) + (db.get(0).contains("?") ? "&" : "?") + TIMEOUTS;
    JdbcOutageGate.ConnectionKiller killer =
        new JdbcOutageGate.ConnectionKiller(
            () -> DriverManager.getConnection(url, db.get(1), db.get(2)),
            admin -> terminate(admin, app));
    CompletionOutageGate.Result result =
        JdbcOutageGate.run(
            "pg_terminated",
            name ->
                JdbcOutageGate.pool(
                    url + "&ApplicationName=" + (name.equals("gate-admin") ? "admin" : app),
                    db.get(1),
                    db.get(2),
                    name),
            killer);

    assertThat(killer.killed()).as("connections terminated").isPositive();
    JdbcOutageGate.assertEveryKeyRanOnce(result);
  }

  private static int terminate(Connection admin, String applicationName)
      throws java.sql.SQLException {
    try (PreparedStatement ps =
        admin.prepareStatement(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                + " WHERE application_name = ? AND pid <> pg_backend_pid()")) {
      ps.setString(1, applicationName);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
