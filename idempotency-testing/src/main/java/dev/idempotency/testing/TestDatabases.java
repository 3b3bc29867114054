package dev.idempotency.testing;

import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * The test databases, and the drivers and settings the JDBC store is tested through: their
 * addresses come from {@code IDEMPOTENCY_TEST_*} environment variables, which {@code eval "$(bash
 * scripts/services.sh)"} prints. A missing variable fails the test when {@code CI=true} and skips
 * it, with the same instruction, otherwise: a server-backed test never passes in CI without its
 * server. {@link #require} applies the same rule to any other variable a test needs.
 */
public enum TestDatabases {
  /** PostgreSQL through its JDBC driver. */
  POSTGRES(
      "IDEMPOTENCY_TEST_PG_URL", "IDEMPOTENCY_TEST_PG_USER", "IDEMPOTENCY_TEST_PG_PASSWORD", ""),
  /**
   * The same PostgreSQL through PgBouncer in transaction pooling mode, as production often runs it:
   * each transaction may get another server connection, so the driver must not keep prepared
   * statements on one ({@code prepareThreshold=0}).
   */
  POSTGRES_PGBOUNCER(
      "IDEMPOTENCY_TEST_PGBOUNCER_URL",
      "IDEMPOTENCY_TEST_PG_USER",
      "IDEMPOTENCY_TEST_PG_PASSWORD",
      "prepareThreshold=0"),
  /** MariaDB through MySQL Connector/J, which reports found rows. */
  MARIADB_CONNECTOR_J(
      "IDEMPOTENCY_TEST_MYSQL_URL",
      "IDEMPOTENCY_TEST_MYSQL_USER",
      "IDEMPOTENCY_TEST_MYSQL_PASSWORD",
      ""),
  /** MariaDB through MySQL Connector/J with {@code useAffectedRows=true}. */
  MARIADB_CONNECTOR_J_AFFECTED_ROWS(
      "IDEMPOTENCY_TEST_MYSQL_URL",
      "IDEMPOTENCY_TEST_MYSQL_USER",
      "IDEMPOTENCY_TEST_MYSQL_PASSWORD",
      "useAffectedRows=true"),
  /** MariaDB through the MariaDB driver. */
  MARIADB_DRIVER(
      "IDEMPOTENCY_TEST_MARIADB_URL",
      "IDEMPOTENCY_TEST_MYSQL_USER",
      "IDEMPOTENCY_TEST_MYSQL_PASSWORD",
      ""),
  /**
   * MariaDB through MySQL Connector/J, the session's {@code sql_mode} with {@code
   * SIMULTANEOUS_ASSIGNMENT} (every assignment of an {@code UPDATE} sees the old row), set per
   * connection as a pool may.
   */
  MARIADB_SA_CONNECTOR_J(
      "IDEMPOTENCY_TEST_MYSQL_URL",
      "IDEMPOTENCY_TEST_MYSQL_USER",
      "IDEMPOTENCY_TEST_MYSQL_PASSWORD",
      TestDatabases.SIMULTANEOUS_ASSIGNMENT),
  /** The same, through the MariaDB driver. */
  MARIADB_SA_DRIVER(
      "IDEMPOTENCY_TEST_MARIADB_URL",
      "IDEMPOTENCY_TEST_MYSQL_USER",
      "IDEMPOTENCY_TEST_MYSQL_PASSWORD",
      TestDatabases.SIMULTANEOUS_ASSIGNMENT),
  /** Embedded, in memory: needs no variable. */
  H2(null, null, null, "");

  /**
   * MariaDB's default {@code sql_mode} and {@code SIMULTANEOUS_ASSIGNMENT}, as both drivers' URL
   * parameter.
   */
  private static final String SIMULTANEOUS_ASSIGNMENT =
      "sessionVariables=sql_mode='STRICT_TRANS_TABLES,"
          + "ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION,SIMULTANEOUS_ASSIGNMENT'";

  private static final AtomicInteger H2_DBS = new AtomicInteger();
  private final String urlVar;
  private final String userVar;
  private final String passwordVar;
  private final String extraParams;

  TestDatabases(String urlVar, String userVar, String passwordVar, String extraParams) {
    this.urlVar = urlVar;
    this.userVar = userVar;
    this.passwordVar = passwordVar;
    this.extraParams = extraParams;
  }

  /**
   * Fails (CI) or skips (locally) the calling test unless every named environment variable is set.
   *
   * @param variables the names of the environment variables
   * @return the values, in order
   */
  public static List<String> require(String... variables) {
    List<String> values = new ArrayList<>();
    for (String v : variables) {
      String value = System.getenv(v);
      if (value == null || value.isBlank()) {
        String message =
            "Environment variable "
                + v
                + " is not set: start the test databases with "
                + "`eval \"$(bash scripts/services.sh)\"` from the repository root, then run the tests again.";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
          fail(message);
        }
        Assumptions.abort(message);
      }
      values.add(value);
    }
    return values;
  }

  /** A URL for this database, e.g. for an H2 database of its own; call once per test class. */
  public String url() {
    if (urlVar == null) {
      return "jdbc:h2:mem:idem" + H2_DBS.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
    }
    String url = require(urlVar).get(0);
    if (extraParams.isEmpty()) {
      return url;
    }
    return url + (url.contains("?") ? "&" : "?") + extraParams;
  }

  /** A new pool of {@code size} connections to {@code url}: one application instance. */
  public HikariDataSource pool(String url, int size) {
    return pool(url, size, null);
  }

  /**
   * A new pool of {@code size} connections to {@code url} at {@code isolation} (a {@code
   * Connection} constant's name, such as {@code TRANSACTION_REPEATABLE_READ}; {@code null} for the
   * driver's default).
   *
   * @throws IllegalArgumentException for {@link #POSTGRES_PGBOUNCER} with an {@code isolation}: a
   *     pool's level is a session setting, which transaction pooling leaks to other clients
   */
  public HikariDataSource pool(String url, int size, String isolation) {
    if (isolation != null && this == POSTGRES_PGBOUNCER) {
      // PostgreSQL's driver sets a connection's isolation as a session setting, which PgBouncer's
      // transaction pooling hands on with the server connection to whichever client comes next
      throw new IllegalArgumentException(
          "a pool through PgBouncer cannot set the isolation level on its connections: it would"
              + " leak to other clients; set it per transaction (SET TRANSACTION ISOLATION LEVEL)");
    }
    HikariConfig config = new HikariConfig();
    if (isolation != null) {
      config.setTransactionIsolation(isolation);
    }
    config.setJdbcUrl(url);
    if (userVar != null) {
      List<String> cred = require(userVar, passwordVar);
      config.setUsername(cred.get(0));
      config.setPassword(cred.get(1));
    }
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(10_000);
    config.setPoolName(
        "test-"
            + name().toLowerCase(Locale.ROOT)
            + "-"
            + size
            + (isolation == null ? "" : "-" + isolation));
    return new HikariDataSource(config);
  }
}
