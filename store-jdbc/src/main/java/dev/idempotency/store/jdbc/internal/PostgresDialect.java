package dev.idempotency.store.jdbc.internal;

import static dev.idempotency.store.jdbc.internal.Param.BODY;
import static dev.idempotency.store.jdbc.internal.Param.FENCE;
import static dev.idempotency.store.jdbc.internal.Param.FINGERPRINT;
import static dev.idempotency.store.jdbc.internal.Param.HEADERS;
import static dev.idempotency.store.jdbc.internal.Param.KEY;
import static dev.idempotency.store.jdbc.internal.Param.LEASE;
import static dev.idempotency.store.jdbc.internal.Param.LIMIT;
import static dev.idempotency.store.jdbc.internal.Param.RETENTION;
import static dev.idempotency.store.jdbc.internal.Param.SCOPE;
import static dev.idempotency.store.jdbc.internal.Param.STATUS;
import static dev.idempotency.store.jdbc.internal.Param.WINDOW;

import dev.idempotency.FenceToken;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.StoreUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL: one statement of three CTE branches: the existing row as of the statement's snapshot,
 * an {@code INSERT … ON CONFLICT DO NOTHING} when there is none, and a conditional {@code UPDATE}
 * when it is claimable. Replays, mismatches and in-flight answers are decided from the snapshot and
 * write nothing. A row inserted by a concurrent transaction after the snapshot makes the statement
 * return nothing, and the caller reads again (the one case of two round trips). An attempt after
 * one that did not settle runs the same statement with the existing row read {@code FOR UPDATE}, so
 * that it decides on the newest row under its lock.
 */
final class PostgresDialect extends SqlDialect {
  private final NamedSql claim;
  private final NamedSql claimLocked;
  private final NamedSql firstLook;
  private final NamedSql awaitKeyLock;
  private final NamedSql insertCompleted;
  private final Map<String, NamedSql> deleteExpired = new ConcurrentHashMap<>();

  PostgresDialect(Names names, boolean serverClock, int queryTimeoutSeconds) {
    super(names, serverClock, queryTimeoutSeconds);
    String t = names.table();
    String n = now();
    String seq = "nextval('" + names.sequence() + "')";
    // One statement, three branches, at most one of which writes:
    // - existing: the row as of the statement's snapshot. A replay, a mismatch or an in-flight
    //   answer is decided from it alone, so those outcomes only read: no row lock, no write, like a
    //   plain SELECT.
    // - inserted: a fresh claim when the snapshot has no row. ON CONFLICT DO NOTHING: a row a
    //   concurrent transaction inserted meanwhile makes it return nothing, and the caller reads
    //   again (two round trips only under that race).
    // - updated: a takeover or a re-claim when the snapshot's row is claimable. UPDATE re-checks
    //   the condition on the newest row version after any lock wait, so two takers cannot both win.
    claim = NamedSql.parse(claimSql(t, n, seq, false));
    // The same statement with the existing row locked: used once an attempt did not settle, so that
    // the claim cannot lose again. Without the lock, a claim that meets a released row whose UPDATE
    // another claim wins, and that then reads the row released again, starts over; under a churn of
    // claims and releases on one key it can lose every round until it runs out of attempts. Not the
    // first attempt: replays and in-flight answers stay plain reads that take no row lock.
    claimLocked = NamedSql.parse(claimSql(t, n, seq, true));
    // One-transaction requests for a key serialize on a transaction-scoped advisory lock on its
    // hash, so that a fresh key's record can be inserted once, complete, at the end of the
    // transaction: one heap tuple and its index entries, where claiming first writes the row in
    // flight and then updates it (a non-HOT update: state is indexed). The scope's length prefixes
    // the hashed text, so that no two records share it; two records whose 64-bit hashes collide
    // only wait for each other. The lock is tried in the statement that reads the row, not awaited
    // there: a statement's snapshot predates any wait inside it.
    String keyLock =
        "hashtextextended(CAST(length(CAST("
            + SCOPE
            + " AS text)) AS text) || ':' || CAST("
            + SCOPE
            + " AS text) || CAST("
            + KEY
            + " AS text), 0)";
    firstLook =
        NamedSql.parse(
            "SELECT pg_try_advisory_xact_lock("
                + keyLock
                + ") AS locked, CASE WHEN r.scope IS NULL THEN "
                + seq
                + " END AS next_fence, "
                + n
                + " AS db_now, r.* FROM (SELECT 1) AS one LEFT JOIN "
                + t
                + " r ON r.scope = "
                + SCOPE
                + " AND r.idem_key = "
                + KEY);
    awaitKeyLock = NamedSql.parse("SELECT pg_advisory_xact_lock(" + keyLock + ")");
    String fnow = fencedNow();
    insertCompleted =
        NamedSql.parse(
            "INSERT INTO "
                + t
                + " (scope, idem_key, state, fingerprint, fence, completed_at_ns, retain_from_ns,"
                + " claim_kind, row_version, response_status, response_headers, response_body)"
                + " VALUES ("
                + SCOPE
                + ", "
                + KEY
                + ", 'C', "
                + FINGERPRINT
                + ", "
                + FENCE
                + ", "
                + fnow
                + ", "
                + fnow
                + ", 'F', 1, "
                + STATUS
                + ", "
                + HEADERS
                + ", "
                + BODY
                + ") ON CONFLICT (scope, idem_key) DO NOTHING");
  }

  /**
   * A one-transaction claim: one statement tries the key's advisory lock and reads the row. Locked
   * and no row: claimed, with a fence from the sequence, and nothing written until the completion
   * inserts the complete record. Locked and a row that settles the claim (a replay, a mismatch, a
   * live lease): that answer, nothing written. Otherwise (a claimable row, or another
   * one-transaction request of the key holding the lock, awaited here within the statement
   * timeout): the claim statement, as the two-commit lifecycle claims.
   */
  @Override
  public TransactionClaim claimInTransaction(Connection c, ParamValues p) throws SQLException {
    boolean locked;
    try (PreparedStatement ps = prepare(firstLook, c, p);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      locked = rs.getBoolean("locked");
      if (locked) {
        if (rs.getString("state") == null) {
          return new TransactionClaim(
              ClaimOutcome.Claimed.fresh(FenceToken.of(rs.getLong("next_fence"))), true);
        }
        ClaimOutcome settled =
            Row.read(rs, false).outcomeOfClaim(rs.getLong("db_now"), p.fingerprint(), p.window());
        if (settled != null) {
          return new TransactionClaim(settled, false);
        }
      }
    }
    if (!locked) {
      try (PreparedStatement ps = prepare(awaitKeyLock, c, p)) {
        ps.execute();
      }
    }
    // The claim statement's attempts, without SqlDialect.claim's rollback between them: a rollback
    // here would drop the advisory lock. PostgreSQL's claim statement raises no duplicate key; a
    // serialization failure or deadlock propagates, and the whole transaction runs again, taking
    // the
    // lock again.
    for (int attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
      ClaimOutcome o = claimOnce(c, p, attempt > 1);
      if (o == null) {
        o = readOutcome(c, p);
      }
      if (o != null) {
        return new TransactionClaim(o, false);
      }
    }
    throw new StoreUnavailableException(
        "claim did not settle after "
            + MAX_CLAIM_ATTEMPTS
            + " attempts: the record kept changing under contention");
  }

  @Override
  public void completeInTransaction(Connection c, ParamValues p, boolean insert)
      throws SQLException {
    if (!insert) {
      super.completeInTransaction(c, p, false);
      return;
    }
    try (PreparedStatement ps = prepare(insertCompleted, c, p)) {
      if (ps.executeUpdate() == 0) {
        // a two-commit claim of the key, which takes no advisory lock, committed its row after
        // this transaction read none: run the transaction again, whose claim then meets that row
        throw new SQLException(
            "the record of this one-transaction request was written by another claim meanwhile",
            "40001");
      }
    }
  }

  /**
   * The claim statement. {@code locked}: {@code existing} reads with FOR UPDATE, which waits for
   * the row's lock, re-reads its newest committed version and keeps it locked to the end of the
   * statement, so the decision made from it is final. The UPDATE then must not re-test claimability
   * on the row: its scan tests conditions on the statement's snapshot, which may hold an older,
   * unclaimable version, and would skip the row (PostgreSQL only re-checks the newest version of
   * rows whose snapshot version passed). Its guard is instead that the row is no newer than the
   * version {@code existing} locked; the re-check on the newest version then finds exactly it.
   */
  private static String claimSql(String t, String n, String seq, boolean locked) {
    String claimable = claimable("r.", n);
    return "WITH existing AS ("
        + "SELECT "
        + Row.COLUMNS
        + ", claim_kind, row_version, ("
        + claimable("", n)
        + ") AS claimable FROM "
        + t
        + " WHERE scope = "
        + SCOPE
        + " AND idem_key = "
        + KEY
        + (locked ? " FOR UPDATE" : "")
        + "),"
        + " inserted AS ("
        + "INSERT INTO "
        + t
        + " (scope, idem_key, state, fingerprint, fence, lease_expires_at_ns, completed_at_ns,"
        + " retain_from_ns, claim_kind, row_version)"
        + " SELECT "
        + SCOPE
        + ", "
        + KEY
        + ", 'I', "
        + FINGERPRINT
        + ", "
        + seq
        + ", "
        + n
        + " + "
        + LEASE
        + ", NULL, "
        + n
        + " + "
        + LEASE
        + ", 'F', 1"
        + " WHERE NOT EXISTS (SELECT 1 FROM existing)"
        + " ON CONFLICT (scope, idem_key) DO NOTHING"
        + " RETURNING "
        + Row.COLUMNS
        + ", claim_kind),"
        + " updated AS ("
        + "UPDATE "
        + t
        + " AS r SET state = 'I', fingerprint = "
        + FINGERPRINT
        + ","
        // nextval is drawn under the row lock, so it is greater than every fence issued before;
        // GREATEST guards against a sequence that was reset by hand
        + " fence = GREATEST("
        + seq
        + ", r.fence + 1),"
        + " lease_expires_at_ns = "
        + n
        + " + "
        + LEASE
        + ", completed_at_ns = NULL, retain_from_ns = "
        + n
        + " + "
        + LEASE
        + ","
        + " claim_kind = CASE WHEN r.state = 'I' THEN 'T' ELSE 'F' END, row_version = r.row_version + 1,"
        // a takeover continues the request: it keeps the generation; a fresh claim begins its own
        // (NULL: = fence)
        + " generation_fence = CASE WHEN r.state = 'I' THEN COALESCE(r.generation_fence, r.fence) END,"
        + " rp_name = CASE WHEN r.state = 'I' THEN r.rp_name END, rp_data = CASE WHEN r.state = 'I' THEN r.rp_data END,"
        + " response_status = NULL, response_headers = NULL, response_body = NULL"
        + " WHERE r.scope = "
        + SCOPE
        + " AND r.idem_key = "
        + KEY
        + " AND EXISTS (SELECT 1 FROM existing WHERE claimable)"
        + " AND "
        + (locked ? "r.row_version <= (SELECT row_version FROM existing)" : "(" + claimable + ")")
        + " RETURNING "
        + Row.COLUMNS
        + ", claim_kind)"
        + " SELECT "
        + Row.COLUMNS
        + ", claim_kind, TRUE AS won, "
        + n
        + " AS db_now FROM inserted"
        + " UNION ALL SELECT "
        + Row.COLUMNS
        + ", claim_kind, TRUE, "
        + n
        + " FROM updated"
        + " UNION ALL SELECT "
        + Row.COLUMNS
        + ", claim_kind, FALSE, "
        + n
        + " FROM existing"
        + " WHERE NOT EXISTS (SELECT 1 FROM inserted) AND NOT EXISTS (SELECT 1 FROM updated)";
  }

  /**
   * Claimable by this request: released, completed with the window passed, or its own lease
   * expired.
   */
  private static String claimable(String alias, String now) {
    return alias
        + "state = 'R' OR ("
        + alias
        + "state = 'C' AND "
        + alias
        + "completed_at_ns <= "
        + now
        + " - "
        + WINDOW
        + ") OR ("
        + alias
        + "state = 'I' AND "
        + alias
        + "lease_expires_at_ns <= "
        + now
        + " AND "
        + alias
        + "fingerprint = "
        + FINGERPRINT
        + ")";
  }

  @Override
  String clockExpression() {
    return "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000000 AS BIGINT)";
  }

  @Override
  NamedSql deleteExpiredSql(String states) {
    String t = names.table();
    String n = now();
    // key-based and SKIP LOCKED: the batch never waits for, nor blocks, a claim of a row it
    // selected
    return deleteExpired.computeIfAbsent(
        states,
        s ->
            NamedSql.parse(
                "DELETE FROM "
                    + t
                    + " WHERE (scope, idem_key) IN (SELECT scope, idem_key FROM "
                    + t
                    + " WHERE "
                    + s
                    + " AND retain_from_ns <= "
                    + n
                    + " - "
                    + RETENTION
                    + " LIMIT "
                    + LIMIT
                    + " FOR UPDATE SKIP LOCKED) AND retain_from_ns <= "
                    + n
                    + " - "
                    + RETENTION));
  }

  @Override
  public List<String> validationStatements() {
    List<String> l = super.validationStatements();
    l.add("SELECT last_value FROM " + names.sequence());
    return l;
  }

  @Override
  @Nullable ClaimOutcome claimOnce(Connection c, ParamValues p, boolean lostBefore)
      throws SQLException {
    try (PreparedStatement ps = prepare(lostBefore ? claimLocked : claim, c, p);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null; // a concurrent insert the snapshot cannot see: read again
      }
      Row row = Row.read(rs, false);
      if (rs.getBoolean("won")) {
        return row.claimedOutcome("T".equals(rs.getString("claim_kind")));
      }
      return row.outcomeOfClaim(rs.getLong("db_now"), p.fingerprint(), p.window());
    }
  }
}
