package dev.idempotency.benchmarks;

import dev.idempotency.core.IdempotencyEngine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The write-ahead log a single-step write request costs on PostgreSQL, per request: the bare
 * request, the least a keyed request must log, and the library's modes, from the difference of
 * {@code pg_current_wal_lsn()} around {@code n} requests of each kind (cluster-wide bytes, exact at
 * once, where {@code pg_stat_wal} lags by up to its flush interval). Each kind starts after a
 * {@code CHECKPOINT} and a warm-up of its own, so that the full-page images the first write to each
 * page after a checkpoint logs are paid before the measurement and the figure is the steady state.
 * Nothing else may write to the server meanwhile: {@code benchmarks/durable.sh} runs it on a server
 * of its own.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.idempotency.benchmarks.WalPerRequest
 * POSTGRESQL_DURABLE 5000 out.txt}. The user needs the {@code pg_checkpoint} role.
 */
public final class WalPerRequest {
  private static final String FLOOR = "bench_floor_records";

  private WalPerRequest() {}

  /** One kind of request: runs one request with a fresh key. */
  @FunctionalInterface
  interface Request {
    void run(String key) throws Exception;
  }

  record Measured(String kind, long requests, long bytes) {
    String line() {
      return String.format(Locale.ROOT, "| %s | %.0f |", kind, (double) bytes / requests);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: WalPerRequest <server, e.g. POSTGRESQL_DURABLE> <n> <out.txt>");
      System.exit(2);
    }
    OrdersServer server = OrdersServer.valueOf(args[0]);
    int n = Integer.parseInt(args[1]);
    List<Measured> results = new ArrayList<>();
    try (OrdersDatabase db = new OrdersDatabase(server);
        IdempotencyEngine engine = IdempotencyEngine.builder(db.store).build()) {
      createFloorTable(db);
      results.add(measure(db, "bare request: the business INSERT, one commit", n, db::bareRequest));
      results.add(
          measure(
              db,
              "floor: the business INSERT and one INSERT of a complete record (primary key only),"
                  + " one commit",
              n,
              key -> floorRequest(db, key)));
      results.add(
          measure(
              db,
              "one transaction: claim, business INSERT, completion, one commit"
                  + " (Work.inOneTransaction)",
              n,
              key -> db.oneTransactionRequest(engine, key)));
      results.add(
          measure(
              db,
              "two commits: claim, then the business INSERT with the completion"
                  + " (execute + completeWith)",
              n,
              key -> db.twoCommitRequest(engine, key)));
    }
    StringBuilder out = new StringBuilder();
    out.append("WAL per request on ")
        .append(server)
        .append(", ")
        .append(n)
        .append(" requests of each kind, from pg_current_wal_lsn()\n\n");
    out.append("| request | WAL bytes per request |\n|---|---:|\n");
    results.forEach(m -> out.append(m.line()).append('\n'));
    write(Path.of(args[2]), out.toString());
    System.out.print(out);
  }

  private static void createFloorTable(OrdersDatabase db) throws SQLException {
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + FLOOR);
      s.execute(
          "CREATE TABLE "
              + FLOOR
              + " (scope VARCHAR(255) NOT NULL, idem_key VARCHAR(255) NOT NULL,"
              + " fingerprint BYTEA NOT NULL, response_status INTEGER NOT NULL,"
              + " response_body BYTEA NOT NULL, completed_at TIMESTAMPTZ NOT NULL,"
              + " PRIMARY KEY (scope, idem_key))");
    }
  }

  /** The least a keyed single-step request logs: its write and one complete record, one commit. */
  private static void floorRequest(OrdersDatabase db, String key) throws SQLException {
    db.inTransaction(
        c -> {
          OrdersDatabase.insertOrder(c, key);
          try (PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO "
                      + FLOOR
                      + " VALUES (?, ?, ?, 201, ?, now()) ON CONFLICT DO NOTHING")) {
            insert.setString(1, OrdersDatabase.SCOPE);
            insert.setString(2, key);
            insert.setBytes(3, OrdersDatabase.FINGERPRINT.bytes());
            insert.setBytes(4, OrdersDatabase.CREATED.body());
            insert.executeUpdate();
          }
        });
  }

  private static Measured measure(OrdersDatabase db, String kind, int n, Request request)
      throws Exception {
    String prefix = "wal-" + System.nanoTime() + "-";
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CHECKPOINT");
    }
    for (int i = 0; i < Math.max(200, n / 10); i++) {
      request.run(prefix + "warm-" + i);
    }
    String before = walPosition(db);
    for (int i = 0; i < n; i++) {
      request.run(prefix + i);
    }
    return new Measured(kind, n, walBytesSince(db, before));
  }

  private static String walPosition(OrdersDatabase db) throws SQLException {
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static long walBytesSince(OrdersDatabase db, String position) throws SQLException {
    try (Connection c = db.pool.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)")) {
      s.setString(1, position);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getBigDecimal(1).longValueExact();
      }
    }
  }

  private static void write(Path path, String text) throws IOException {
    Path parent = path.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(path, text, StandardCharsets.UTF_8);
  }
}
