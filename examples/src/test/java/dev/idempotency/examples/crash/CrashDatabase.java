package dev.idempotency.examples.crash;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import javax.sql.DataSource;

/**
 * The databases the crash tests run against. The servers' addresses come from the {@code
 * IDEMPOTENCY_TEST_*} environment variables that {@code eval "$(bash scripts/services.sh)"} prints
 * (the ones {@link TestDatabases} reads for store-jdbc's tests). A missing variable fails the test
 * when {@code CI=true} and skips it, with the same instruction, otherwise.
 */
enum CrashDatabase {
  POSTGRES(
      "PostgreSQL",
      "IDEMPOTENCY_TEST_PG_URL",
      "IDEMPOTENCY_TEST_PG_USER",
      "IDEMPOTENCY_TEST_PG_PASSWORD"),
  /** MariaDB through the MariaDB driver. */
  MARIADB(
      "MariaDB",
      "IDEMPOTENCY_TEST_MARIADB_URL",
      "IDEMPOTENCY_TEST_MYSQL_USER",
      "IDEMPOTENCY_TEST_MYSQL_PASSWORD"),
  /**
   * H2 in server-less file mode: each worker process opens the database file itself, one after the
   * other. {@code WRITE_DELAY=0} is required for a crash test, not a tuning: H2 has no redo log,
   * and by default its background writer stores committed changes up to 500 ms after the commit, so
   * a process killed right after a commit loses that commit. Measured: without it, every test here
   * failed, the record absent after the kill (a completed one included, whose response the client
   * may have had) and the ledger empty; with it, each commit is written to the file before {@code
   * commit()} returns, and the tests pass. The file lock needs nothing: H2's default ({@code
   * FILE_LOCK=FILE}) is an operating-system lock on the {@code .mv.db} file, which the kernel drops
   * with the killed process, so the next process opens the file at once (no {@code .lock.db} is
   * left behind).
   */
  H2_FILE("H2 (file mode)", null, null, null);

  /** Where one test's database is, and how to log in. */
  record Target(CrashDatabase database, String url, String user, String password) {
    /** A new small pool: the test's own connection to the database, between the workers. */
    HikariDataSource pool() {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setUsername(user);
      config.setPassword(password);
      config.setMaximumPoolSize(2);
      config.setMinimumIdle(0);
      config.setConnectionTimeout(10_000);
      config.setPoolName("crash-test-" + database.name().toLowerCase());
      return new HikariDataSource(config);
    }

    /** Drops one test's tables (H2's file goes with its temporary directory). */
    void dropTables(String recordsTable, String ledgerTable) throws SQLException {
      List<String> drops = database.dropStatements(recordsTable, ledgerTable);
      if (drops.isEmpty()) {
        return;
      }
      try (HikariDataSource ds = pool();
          Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        for (String drop : drops) {
          s.execute(drop);
        }
      }
    }

    /**
     * Creates one test's tables: the key store's, and the business ledger, one row per step a
     * worker committed, with the worker's pid. No unique constraint on {@code (record_key, step)},
     * deliberately: a second charge must show as a second row, not be refused by the ledger, or the
     * tests could not see the library run a step twice. "record_key", not "key": KEY is a reserved
     * word in MariaDB. The pool is closed before any worker starts: an H2 file is open in one
     * process at a time.
     */
    void createTables(String recordsTable, String ledgerTable) throws SQLException {
      try (HikariDataSource ds = pool();
          Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        JdbcKeyStore.builder(ds).tableName(recordsTable).createSchemaIfMissing().build();
        s.execute(
            "CREATE TABLE "
                + ledgerTable
                + " (record_key VARCHAR(255) NOT NULL, step VARCHAR(32) NOT NULL, worker_pid BIGINT NOT NULL)");
      }
    }

    /**
     * The committed ledger rows of {@code key}, each {@code "<step> by <worker>"}, sorted (by step,
     * then by worker: the ledger has no ordering column, and the assertions name an order).
     */
    List<String> ledger(DataSource ds, String ledgerTable, String key, LongFunction<String> worker)
        throws SQLException {
      List<String> ledger = new ArrayList<>();
      try (Connection c = ds.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT step, worker_pid FROM " + ledgerTable + " WHERE record_key = ?")) {
        ps.setString(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            ledger.add(rs.getString(1) + " by " + worker.apply(rs.getLong(2)));
          }
        }
      }
      ledger.sort(null);
      return ledger;
    }
  }

  final String label;
  private final String urlVar;
  private final String userVar;
  private final String passwordVar;

  CrashDatabase(String label, String urlVar, String userVar, String passwordVar) {
    this.label = label;
    this.urlVar = urlVar;
    this.userVar = userVar;
    this.passwordVar = passwordVar;
  }

  /**
   * The database of one test: the server's (fails or skips the test when its variables are
   * missing), or a new H2 file under {@code tempDir}.
   */
  Target target(Path tempDir) {
    if (urlVar == null) {
      return new Target(
          this,
          "jdbc:h2:file:" + tempDir.resolve("crash").toAbsolutePath() + ";WRITE_DELAY=0",
          "sa",
          "");
    }
    List<String> values = TestDatabases.require(urlVar, userVar, passwordVar);
    return new Target(this, values.get(0), values.get(1), values.get(2));
  }

  /** The statements that drop one test's tables (H2's file goes with its temporary directory). */
  List<String> dropStatements(String recordsTable, String ledgerTable) {
    List<String> drops = new ArrayList<>();
    if (this == H2_FILE) {
      return drops;
    }
    drops.add("DROP TABLE IF EXISTS " + ledgerTable);
    drops.add("DROP TABLE IF EXISTS " + recordsTable);
    if (this == POSTGRES) {
      drops.add("DROP SEQUENCE IF EXISTS " + recordsTable + "_fence_seq");
    }
    return drops;
  }
}
