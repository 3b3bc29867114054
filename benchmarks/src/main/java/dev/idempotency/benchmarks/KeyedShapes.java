package dev.idempotency.benchmarks;

import dev.idempotency.store.jdbc.Dialect;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests {@link DurableSingleStep} compares the library with, in plain SQL on the same
 * database and pool as {@link OrdersDatabase}'s requests (PostgreSQL and MariaDB):
 *
 * <ul>
 *   <li>the keyed floor: the business {@code INSERT} and one {@code INSERT} of a complete key
 *       record into a table with only a primary key, one commit: the least any keyed design writes;
 *   <li>peer-shaped: the statements and commits idempotence4j 1.7.2 sends per key, reproduced here,
 *       not that library run. A fresh key: an insert-if-absent of the action, commit; then a
 *       locking read of it, the business {@code INSERT} and the update that completes the action,
 *       commit (4 statements, 2 commits, 6 round trips). Its table has only the primary key, so on
 *       PostgreSQL the completion can be a HOT update. A replay: the refused insert-if-absent and a
 *       read of the action, commit (2 statements, 1 commit);
 *   <li>the least a replay reads: one primary-key {@code SELECT} of the library's record;
 *   <li>the optimistic one transaction's statements as plain SQL: the business {@code INSERT} and
 *       the {@code INSERT} of the complete record the store sends, into the library's table, with a
 *       fence from a counter, one commit: what the library costs over its own statements.
 * </ul>
 */
final class KeyedShapes {
  static final String FLOOR = "bench_floor_records";
  static final String PEER = "bench_peer_actions";
  private static final String ACTION_TYPE = "create-order";
  private static final String CLIENT = "bench";

  private final OrdersDatabase db;
  private final boolean postgres;

  /** Fences of the plain-SQL optimistic request: far above the sequence's, never reused. */
  private final AtomicLong fences = new AtomicLong(1L << 50);

  KeyedShapes(OrdersDatabase db) throws SQLException {
    this.db = db;
    if (db.server.dialect != Dialect.POSTGRESQL && db.server.dialect != Dialect.MYSQL) {
      throw new IllegalArgumentException("PostgreSQL or MariaDB, not " + db.server);
    }
    postgres = db.server.dialect == Dialect.POSTGRESQL;
    String bytes = postgres ? "BYTEA" : "VARBINARY(1024)";
    String time = postgres ? "TIMESTAMPTZ" : "TIMESTAMP(6)";
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + FLOOR);
      s.execute(
          "CREATE TABLE "
              + FLOOR
              + " (scope VARCHAR(255) NOT NULL, idem_key VARCHAR(255) NOT NULL, fingerprint "
              + bytes
              + " NOT NULL, response_status INTEGER NOT NULL, response_body "
              + bytes
              + " NOT NULL, completed_at "
              + time
              + " NOT NULL, PRIMARY KEY (scope, idem_key))");
      s.execute("DROP TABLE IF EXISTS " + PEER);
      // idempotence4j's action table: its key (key, type, client) and nothing else indexed
      s.execute(
          "CREATE TABLE "
              + PEER
              + " (action_key VARCHAR(255) NOT NULL, action_type VARCHAR(255) NOT NULL,"
              + " client VARCHAR(255) NOT NULL, created_at "
              + time
              + " NOT NULL, last_run_at "
              + time
              + " NULL, completed_at "
              + time
              + " NULL, result "
              + bytes
              + " NULL, result_type VARCHAR(255) NULL,"
              + " PRIMARY KEY (action_key, action_type, client))");
    }
  }

  /** The keyed floor: the business write and one complete record, one commit. */
  void floorRequest(String key) throws SQLException {
    db.inTransaction(
        c -> {
          OrdersDatabase.insertOrder(c, key);
          insertFloorKey(c, key);
        });
  }

  /** The floor's extra statement: one {@code INSERT} of a complete key record, primary key only. */
  static void insertFloorKey(Connection c, String key) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO " + FLOOR + " VALUES (?, ?, ?, 201, ?, CURRENT_TIMESTAMP)")) {
      insert.setString(1, OrdersDatabase.SCOPE);
      insert.setString(2, key);
      insert.setBytes(3, OrdersDatabase.FINGERPRINT.bytes());
      insert.setBytes(4, OrdersDatabase.CREATED.body());
      insert.executeUpdate();
    }
  }

  /**
   * The optimistic one transaction's statements without the library: the business write and the
   * store's insert of the complete record (the database clock as the store computes it), one
   * commit.
   */
  void optimisticAsSql(String key) throws SQLException {
    String now =
        postgres
            ? "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000000 AS BIGINT)"
            : "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) * 1000";
    String insert =
        postgres
            ? "INSERT INTO "
                + OrdersDatabase.RECORDS
                + " (scope, idem_key, state, fingerprint, fence, completed_at_ns, retain_from_ns,"
                + " claim_kind, row_version, response_status, response_headers, response_body)"
                + " VALUES (?, ?, 'C', ?, ?, {now}, {now}, 'F', 1, 201, ?, ?)"
                + " ON CONFLICT (scope, idem_key) DO NOTHING"
            : "INSERT INTO "
                + OrdersDatabase.RECORDS
                + " (scope, idem_key, state, fingerprint, fence, completed_at_ns, retain_from_ns,"
                + " claim_kind, claim_nonce, row_version, response_status, response_headers,"
                + " response_body) VALUES (?, ?, 'C', ?, ?, {now}, {now}, 'F', ?, 1, 201, ?, ?)";
    db.inTransaction(
        c -> {
          OrdersDatabase.insertOrder(c, key);
          try (PreparedStatement ps = c.prepareStatement(insert.replace("{now}", now))) {
            int i = 1;
            if (postgres) {
              ps.setString(i++, OrdersDatabase.SCOPE);
            } else {
              ps.setBytes(i++, OrdersDatabase.SCOPE.getBytes(StandardCharsets.UTF_8));
            }
            ps.setString(i++, key);
            ps.setBytes(i++, OrdersDatabase.FINGERPRINT.bytes());
            ps.setLong(i++, fences.incrementAndGet());
            if (!postgres) {
              ps.setLong(i++, ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
            }
            ps.setBytes(i++, new byte[0]);
            ps.setBytes(i, OrdersDatabase.CREATED.body());
            if (ps.executeUpdate() != 1) {
              throw new IllegalStateException("a fresh key's record was not inserted: " + key);
            }
          }
        });
  }

  /** Peer-shaped, fresh key: 4 statements, 2 commits. */
  void peerFresh(String key) throws SQLException {
    if (peerClaim(key) != PeerClaim.TAKEN) {
      throw new IllegalStateException("a fresh key was taken: " + key);
    }
    peerComplete(key);
  }

  /** What a peer-shaped caller's insert-if-absent found. */
  enum PeerClaim {
    TAKEN,
    COMPLETE,
    PENDING
  }

  /**
   * A peer-shaped caller's first transaction: the insert-if-absent, and when another caller's
   * action was there, a read of it (1 or 2 statements, 1 commit).
   */
  PeerClaim peerClaim(String key) throws SQLException {
    PeerClaim[] claim = {PeerClaim.PENDING};
    db.inTransaction(
        c -> {
          if (insertAction(c, key)) {
            claim[0] = PeerClaim.TAKEN;
            return;
          }
          try (PreparedStatement read =
              c.prepareStatement(
                  "SELECT completed_at FROM "
                      + PEER
                      + " WHERE action_key = ? AND action_type = ? AND client = ?")) {
            bindKey(read, key, 1);
            try (ResultSet rs = read.executeQuery()) {
              claim[0] =
                  rs.next() && rs.getTimestamp(1) != null ? PeerClaim.COMPLETE : PeerClaim.PENDING;
            }
          }
        });
    return claim[0];
  }

  /**
   * The peer-shaped second transaction of the caller that took the key: a locking read of its
   * action, the business {@code INSERT} and the completing update (3 statements, 1 commit).
   */
  void peerComplete(String key) throws SQLException {
    db.inTransaction(
        c -> {
          try (PreparedStatement lock =
              c.prepareStatement(
                  "SELECT completed_at FROM "
                      + PEER
                      + " WHERE action_key = ? AND action_type = ? AND client = ? FOR UPDATE")) {
            bindKey(lock, key, 1);
            try (ResultSet rs = lock.executeQuery()) {
              if (!rs.next() || rs.getTimestamp(1) != null) {
                throw new IllegalStateException("no pending action for " + key);
              }
            }
          }
          OrdersDatabase.insertOrder(c, key);
          try (PreparedStatement complete =
              c.prepareStatement(
                  "UPDATE "
                      + PEER
                      + " SET last_run_at = CURRENT_TIMESTAMP, completed_at = CURRENT_TIMESTAMP,"
                      + " result = ?, result_type = 'json'"
                      + " WHERE action_key = ? AND action_type = ? AND client = ?")) {
            complete.setBytes(1, OrdersDatabase.CREATED.body());
            bindKey(complete, key, 2);
            complete.executeUpdate();
          }
        });
  }

  /** Peer-shaped, replay of a completed key: 2 statements, 1 commit. */
  void peerReplay(String key) throws SQLException {
    db.inTransaction(
        c -> {
          if (insertAction(c, key)) {
            throw new IllegalStateException("a completed key was absent: " + key);
          }
          try (PreparedStatement read =
              c.prepareStatement(
                  "SELECT completed_at, result FROM "
                      + PEER
                      + " WHERE action_key = ? AND action_type = ? AND client = ?")) {
            bindKey(read, key, 1);
            try (ResultSet rs = read.executeQuery()) {
              if (!rs.next() || rs.getTimestamp(1) == null || rs.getBytes(2) == null) {
                throw new IllegalStateException("a completed key was not complete: " + key);
              }
            }
          }
        });
  }

  /** The least a replay reads: the library's record by its primary key, auto-commit. */
  void primaryKeyRead(String key) throws SQLException {
    try (Connection c = db.source.getConnection();
        PreparedStatement read =
            c.prepareStatement(
                "SELECT * FROM " + OrdersDatabase.RECORDS + " WHERE scope = ? AND idem_key = ?")) {
      if (postgres) {
        read.setString(1, OrdersDatabase.SCOPE);
      } else {
        // the MariaDB schema keeps the scope as bytes
        read.setBytes(1, OrdersDatabase.SCOPE.getBytes(StandardCharsets.UTF_8));
      }
      read.setString(2, key);
      try (ResultSet rs = read.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no record of " + key);
        }
      }
    }
  }

  /** Inserts the action if absent; true if this call inserted it. */
  private boolean insertAction(Connection c, String key) throws SQLException {
    String sql =
        (postgres ? "INSERT INTO " : "INSERT IGNORE INTO ")
            + PEER
            + " (action_key, action_type, client, created_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP)"
            + (postgres ? " ON CONFLICT DO NOTHING" : "");
    try (PreparedStatement insert = c.prepareStatement(sql)) {
      bindKey(insert, key, 1);
      return insert.executeUpdate() == 1;
    }
  }

  private static void bindKey(PreparedStatement s, String key, int first) throws SQLException {
    s.setString(first, key);
    s.setString(first + 1, ACTION_TYPE);
    s.setString(first + 2, CLIENT);
  }
}
