package dev.idempotency.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.Dialect;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link JdbcKeyStore} on one database against the least SQL that database needs for the same
 * outcomes, both over the same connection pool, in auto-commit: a claim is one conditional insert
 * ({@code INSERT … ON CONFLICT DO NOTHING}, {@code INSERT IGNORE}, or H2's plain {@code INSERT}
 * that the primary key arbitrates), a completion one {@code UPDATE} by primary key, a replay or a
 * mismatch one {@code SELECT} by primary key.
 */
final class JdbcFixture implements Fixture {
  private static final String TABLE = "bench_records";
  private static final String BASELINE = "bench_baseline";

  private final HikariDataSource pool;
  private final Dialect dialect;
  private final JdbcKeyStore store;
  private final SqlBaseline baseline;

  JdbcFixture(Dialect dialect, String url, String user, String password) throws SQLException {
    this.dialect = dialect;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(8);
    config.setPoolName("bench-" + dialect.name().toLowerCase(Locale.ROOT));
    pool = new HikariDataSource(config);
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + BASELINE);
      s.execute(
          "CREATE TABLE "
              + BASELINE
              + " (scope VARCHAR(255) NOT NULL, idem_key VARCHAR(255) NOT NULL,"
              + " fingerprint "
              + binary()
              + " NOT NULL, state CHAR(1) NOT NULL, response_body "
              + binary()
              + ","
              + " PRIMARY KEY (scope, idem_key))");
    }
    store = JdbcKeyStore.builder(pool).tableName(TABLE).createSchemaIfMissing().build();
    baseline = new SqlBaseline();
  }

  /**
   * A fixture for the database named by the test-server environment variables the project's scripts
   * set.
   */
  static JdbcFixture fromEnvironment(
      Dialect dialect, String urlVariable, String userVariable, String passwordVariable)
      throws SQLException {
    String url = System.getenv(urlVariable);
    if (url == null) {
      throw new IllegalStateException(
          urlVariable
              + " is not set: start the test servers with"
              + " eval \"$(bash scripts/services.sh)\" (benchmarks/run.sh does it)");
    }
    return new JdbcFixture(
        dialect, url, System.getenv(userVariable), System.getenv(passwordVariable));
  }

  private String binary() {
    return switch (dialect) {
      case POSTGRESQL -> "BYTEA";
      case MYSQL -> "VARBINARY(1024)";
      case H2 -> "VARBINARY(1024)";
    };
  }

  @Override
  public KeyStore store() {
    return store;
  }

  @Override
  public Baseline baseline() {
    return baseline;
  }

  @Override
  public void clear() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      // TRUNCATE, not DELETE: no dead tuples or index pages of the last iteration in this one's
      // way, and sizes measured after it are of what is stored now
      s.execute("TRUNCATE TABLE " + TABLE);
      s.execute("TRUNCATE TABLE " + BASELINE);
      if (dialect == Dialect.POSTGRESQL) {
        s.execute("ANALYZE " + TABLE);
        s.execute("ANALYZE " + BASELINE);
      }
    }
  }

  /**
   * Stores one record through the store, then copies it {@code count} times under generated keys in
   * one {@code INSERT … SELECT}: a million claims one by one would take the benchmark longer than
   * it measures.
   */
  @Override
  public void preload(
      String scope, String prefix, int count, byte[] fingerprint, StoredResponse response)
      throws Exception {
    String templatePrefix = "template-" + prefix;
    Fixture.super.preload(scope, templatePrefix, 1, fingerprint, response);
    String templateKey = templatePrefix + "0"; // the default preload numbers its keys from 0
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT * FROM " + TABLE + " WHERE 1 = 0")) {
        ResultSetMetaData md = rs.getMetaData();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          columns.add(md.getColumnName(i));
        }
      }
      String keyColumn =
          columns.stream().filter(n -> n.equalsIgnoreCase("idem_key")).findFirst().orElseThrow();
      List<String> select = new ArrayList<>();
      for (String column : columns) {
        if (column.equals(keyColumn)) {
          select.add(keyExpression(prefix));
        } else if (column.equalsIgnoreCase("retain_from_ns")
            || column.equalsIgnoreCase("completed_at_ns")) {
          // a nanosecond apart each, as records completed one after another are: identical
          // values would let the index deduplicate them and look smaller than it is
          select.add("r." + column + " + g.n");
        } else {
          select.add("r." + column);
        }
      }
      String series =
          switch (dialect) {
            case POSTGRESQL -> "generate_series(0, " + (count - 1) + ") AS g(n)";
            case MYSQL -> "(SELECT seq AS n FROM seq_0_to_" + (count - 1) + ") g";
            case H2 -> "(SELECT X AS n FROM SYSTEM_RANGE(0, " + (count - 1) + ")) g";
          };
      int copied =
          s.executeUpdate(
              "INSERT INTO "
                  + TABLE
                  + " ("
                  + String.join(", ", columns)
                  + ") SELECT "
                  + String.join(", ", select)
                  + " FROM "
                  + TABLE
                  + " r CROSS JOIN "
                  + series
                  + " WHERE r."
                  + keyColumn
                  + " = '"
                  + templateKey
                  + "'");
      if (copied != count) {
        // a preload that copied nothing would make every "replay" a fresh claim and every reaped
        // batch empty
        throw new IllegalStateException("preload copied " + copied + " records, not " + count);
      }
      if (dialect == Dialect.POSTGRESQL) {
        s.execute(
            "VACUUM ANALYZE "
                + TABLE); // set hint bits and the visibility map once, not in the measurement
      }
    }
  }

  /**
   * The on-disk size of the store's table and of each of its indexes, in bytes, after statistics
   * are refreshed: PostgreSQL's {@code pg_relation_size} per relation (the table's TOAST and maps
   * included in its own line), MariaDB's InnoDB {@code data_length} and {@code index_length}
   * (estimates InnoDB keeps per page, refreshed by {@code ANALYZE TABLE}).
   */
  Map<String, Long> storageBytes() throws SQLException {
    Map<String, Long> sizes = new LinkedHashMap<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      switch (dialect) {
        case POSTGRESQL -> {
          s.execute("VACUUM ANALYZE " + TABLE);
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT 'table ' || c.relname, pg_table_size(c.oid) FROM pg_class c"
                      + " WHERE c.relname = '"
                      + TABLE
                      + "' UNION ALL SELECT 'index ' || i.relname, pg_relation_size(i.oid)"
                      + " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
                      + " JOIN pg_class t ON t.oid = x.indrelid WHERE t.relname = '"
                      + TABLE
                      + "'")) {
            while (rs.next()) {
              sizes.put(rs.getString(1), rs.getLong(2));
            }
          }
        }
        case MYSQL -> {
          s.execute("ANALYZE TABLE " + TABLE);
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT data_length, index_length FROM information_schema.TABLES"
                      + " WHERE table_schema = DATABASE() AND table_name = '"
                      + TABLE
                      + "'")) {
            rs.next();
            sizes.put("table (clustered on the primary key) " + TABLE, rs.getLong(1));
            sizes.put("secondary indexes", rs.getLong(2));
          }
        }
        case H2 -> throw new UnsupportedOperationException("H2's sizes are not reported");
      }
    }
    return sizes;
  }

  private String keyExpression(String prefix) {
    return dialect == Dialect.MYSQL
        ? "CONCAT('" + prefix + "', g.n)"
        : "'" + prefix + "' || CAST(g.n AS VARCHAR(20))";
  }

  @Override
  public void close() {
    pool.close();
  }

  /** The least SQL for each outcome, on the same pool. */
  private final class SqlBaseline implements Baseline {
    private final String insert =
        switch (dialect) {
          case POSTGRESQL ->
              "INSERT INTO "
                  + BASELINE
                  + " (scope, idem_key, fingerprint, state) VALUES (?, ?, ?, 'I')"
                  + " ON CONFLICT DO NOTHING";
          case MYSQL ->
              "INSERT IGNORE INTO "
                  + BASELINE
                  + " (scope, idem_key, fingerprint, state) VALUES (?, ?, ?, 'I')";
          case H2 ->
              "INSERT INTO "
                  + BASELINE
                  + " (scope, idem_key, fingerprint, state) VALUES (?, ?, ?, 'I')";
        };
    private final String complete =
        "UPDATE "
            + BASELINE
            + " SET state = 'C', response_body = ? WHERE scope = ?"
            + " AND idem_key = ?";
    private final String read =
        "SELECT fingerprint, response_body FROM "
            + BASELINE
            + " WHERE scope = ?"
            + " AND idem_key = ?";

    @Override
    public void claimAndComplete(String scope, String key, byte[] fingerprint, byte[] response) {
      try (Connection c = pool.getConnection()) {
        int inserted;
        try (PreparedStatement ps = c.prepareStatement(insert)) {
          ps.setString(1, scope);
          ps.setString(2, key);
          ps.setBytes(3, fingerprint);
          inserted = ps.executeUpdate();
        } catch (SQLException duplicate) {
          if (dialect != Dialect.H2) {
            throw duplicate;
          }
          inserted = 0; // H2's plain INSERT: the primary key refused a second claim
        }
        if (inserted == 1) {
          try (PreparedStatement ps = c.prepareStatement(complete)) {
            ps.setBytes(1, response);
            ps.setString(2, scope);
            ps.setString(3, key);
            ps.executeUpdate();
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public byte[] replay(String scope, String key, byte[] fingerprint) {
      byte[][] row = read(scope, key);
      return row != null && Arrays.equals(row[0], fingerprint) ? row[1] : null;
    }

    @Override
    public boolean mismatch(String scope, String key, byte[] fingerprint) {
      byte[][] row = read(scope, key);
      return row != null && !Arrays.equals(row[0], fingerprint);
    }

    private byte[][] read(String scope, String key) {
      try (Connection c = pool.getConnection();
          PreparedStatement ps = c.prepareStatement(read)) {
        ps.setString(1, scope);
        ps.setString(2, key);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? new byte[][] {rs.getBytes(1), rs.getBytes(2)} : null;
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
