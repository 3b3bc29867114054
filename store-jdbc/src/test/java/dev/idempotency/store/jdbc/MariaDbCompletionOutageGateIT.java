package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.CompletionOutageGate;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The outage gate on MariaDB through the MariaDB driver: an outage of the store while the responses
 * are stored, shorter than the lease, runs every key's work once. A server of the test's own frozen
 * with {@code kill -STOP} (the default run); every connection of the store's pools killed ({@code
 * KILL CONNECTION}) again and again on the shared server; and, to show that the gate can fail, a
 * freeze longer than the lease.
 */
class MariaDbCompletionOutageGateIT extends AbstractFrozenServerOutageGate {
  /**
   * The driver's timeouts for outages, in milliseconds: a connect (and its handshake) and a read
   * that get no answer fail within them. The store's statement timeout is server-side on this
   * driver ({@code SET STATEMENT max_statement_time=… FOR}), which a frozen server never applies.
   */
  static final String TIMEOUTS = "connectTimeout=1000&socketTimeout=2000";

  private static final Pattern DATABASE = Pattern.compile("^(jdbc:[a-z]+://[^/]+/)([^?]*)(.*)$");

  MariaDbCompletionOutageGateIT() {
    super("mariadb", TIMEOUTS, OwnDatabaseServer::mariadb);
  }

  @Test
  @Tag("slow")
  void connectionsKilledThroughHalfTheLeaseRunEveryKeyOnce() throws Exception {
    List<String> db =
        TestDatabases.require(
            "IDEMPOTENCY_TEST_MARIADB_URL",
            "IDEMPOTENCY_TEST_MYSQL_USER",
            "IDEMPOTENCY_TEST_MYSQL_PASSWORD");
    String adminUrl = withTimeouts(db.get(0));
    // the store's connections are those on a database of their own, which the killer's is not on
    String database = "idem_gate_" + ProcessHandle.current().pid();
    try (Connection c = DriverManager.getConnection(adminUrl, db.get(1), db.get(2));
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS " + database);
    }
    Matcher m = DATABASE.matcher(adminUrl);
    assertThat(m.matches()).as("a database in %s", adminUrl).isTrue();
    String url = m.group(1) + database + m.group(3);
    JdbcOutageGate.ConnectionKiller killer =
        new JdbcOutageGate.ConnectionKiller(
            () -> DriverManager.getConnection(adminUrl, db.get(1), db.get(2)),
            admin -> kill(admin, database));
    try {
      CompletionOutageGate.Result result =
          JdbcOutageGate.run(
              "mariadb_killed",
              name -> JdbcOutageGate.pool(url, db.get(1), db.get(2), name),
              killer);

      assertThat(killer.killed()).as("connections killed").isPositive();
      JdbcOutageGate.assertEveryKeyRanOnce(result);
    } finally {
      try (Connection c = DriverManager.getConnection(adminUrl, db.get(1), db.get(2));
          Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database);
      }
    }
  }

  private static String withTimeouts(String url) {
    return url + (url.contains("?") ? "&" : "?") + TIMEOUTS;
  }

  private static int kill(Connection admin, String database) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (Statement s = admin.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '"
                    + database
                    + "' AND ID <> CONNECTION_ID()")) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    int killed = 0;
    for (long id : ids) {
      try (Statement s = admin.createStatement()) {
        s.execute("KILL CONNECTION " + id);
        killed++;
      } catch (SQLException e) {
        // 1094 unknown thread: it ended between the listing and the kill
        if (e.getErrorCode() != 1094) {
          throw e;
        }
      }
    }
    return killed;
  }
}
