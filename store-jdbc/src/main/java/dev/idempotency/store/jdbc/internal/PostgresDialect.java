package dev.idempotency.store.jdbc.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL: after the plain read that opens every claim ({@link SqlDialect#claim}) found no
 * record or a claimable one, one statement of three CTE branches: the existing row as of the
 * statement's snapshot, an {@code INSERT … ON CONFLICT DO NOTHING} when there is none, and a
 * conditional {@code UPDATE} when it is claimable. A replay, mismatch or in-flight answer that the
 * row shows by then (it changed since the read) is decided from the snapshot and writes nothing. A
 * row inserted by a concurrent transaction after the snapshot makes the statement return nothing,
 * and the caller reads again (the one case of two round trips). An attempt after one that did not
 * settle runs the same statement with the existing row read {@code FOR UPDATE}, so that it decides
 * on the newest row under its lock.
 */
final class PostgresDialect extends SqlDialect {
  private final NamedSql claim;
  private final NamedSql claimLocked;
  private final NamedSql insertFresh;
  private final NamedSql firstLook;
  private final NamedSql awaitKeyLock;
  private final NamedSql upsertClaim;
  private final NamedSql insertCompleted;
  private final Map<String, NamedSql> deleteExpired = new ConcurrentHashMap<>();
  private final PostgresRenewal renewal;

  PostgresDialect(Names names, boolean serverClock, int queryTimeoutSeconds) {
    super(names, serverClock, queryTimeoutSeconds);
    renewal = new PostgresRenewal(this);
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
    // A key the claim's read found no record of: the insert alone, without the branches that read
    // and update an existing row. A row inserted meanwhile makes it return nothing (read again).
    insertFresh =
        NamedSql.parse(
            """
            INSERT INTO {table} {freshColumns} VALUES ({freshRow})
            ON CONFLICT (scope, idem_key) DO NOTHING RETURNING fence"""
                .replace("{table}", t)
                .replace("{freshColumns}", FRESH_COLUMNS)
                .replace("{freshRow}", freshRow(n, seq)));
    // One-transaction requests for a key serialize on a transaction-scoped advisory lock on its
    // hash, so that a fresh key's record can be inserted once, complete, at the end of the
    // transaction: one heap tuple and its index entries, where claiming first writes the row in
    // flight and then updates it (a non-HOT update: state is indexed). The scope's length prefixes
    // the hashed text, so that no two records share it; two records whose 64-bit hashes collide
    // only wait for each other. The lock is tried in the statement that reads the row, not awaited
    // there: a statement's snapshot predates any wait inside it.
    String keyLock =
        """
        hashtextextended(CAST(length(CAST(:scope AS text)) AS text) || ':' || CAST(:scope AS text)
          || CAST(:key AS text), 0)""";
    // At SERIALIZABLE the row is not read here: an index read takes a predicate lock on its leaf
    // page, and two requests of different keys on one page, each reading its key and inserting it,
    // form a read-write cycle that aborts one of them after its work ran. The condition on the
    // isolation level is a one-time filter over the read (EXPLAIN: Result, One-Time Filter), so
    // the index is not touched at all; the claim is then the upsert below.
    String serializable = "current_setting('transaction_isolation') = 'serializable'";
    firstLook =
        NamedSql.parse(
            """
            SELECT pg_try_advisory_xact_lock({keyLock}) AS locked, {serializable} AS serializable,
              CASE WHEN r.scope IS NULL AND NOT {serializable} THEN {seq} END AS next_fence,
              {now} AS db_now, r.*
            FROM (SELECT 1) AS one LEFT JOIN (
              SELECT * FROM {table} WHERE scope = :scope AND idem_key = :key AND NOT {serializable}
            ) AS r ON TRUE"""
                .replace("{keyLock}", keyLock)
                .replace("{serializable}", serializable)
                .replace("{seq}", seq)
                .replace("{now}", n)
                .replace("{table}", t));
    // The claim at SERIALIZABLE: INSERT … ON CONFLICT checks the key through the index without a
    // predicate lock (its arbiter reads with a dirty snapshot), and locks and updates a claimable
    // row the same way. It returns the row only when it claimed it.
    upsertClaim = NamedSql.parse(upsertClaimSql(t, n, seq));
    awaitKeyLock = NamedSql.parse("SELECT pg_advisory_xact_lock(" + keyLock + ")");
    // The conflict is the record a claim at SERIALIZABLE wrote in flight, under this fence; a row
    // another claim wrote meanwhile has another fence and is left alone (0 rows).
    insertCompleted =
        NamedSql.parse(
            """
            INSERT INTO {table} AS r (scope, idem_key, state, fingerprint, fence, completed_at_ns,
              retain_from_ns, claim_kind, row_version, response_status, response_headers,
              response_body)
            VALUES (:scope, :key, 'C', :fp, :fence, {now}, {now}, 'F', 1, :status, :headers, :body)
            ON CONFLICT (scope, idem_key) DO UPDATE SET state = 'C',
              completed_at_ns = EXCLUDED.completed_at_ns, retain_from_ns = EXCLUDED.retain_from_ns,
              lease_expires_at_ns = NULL, row_version = r.row_version + 1,
              response_status = EXCLUDED.response_status,
              response_headers = EXCLUDED.response_headers, response_body = EXCLUDED.response_body
            WHERE r.fence = EXCLUDED.fence AND r.state = 'I'"""
                .replace("{table}", t)
                .replace("{now}", fencedNow()));
  }

  /** The columns a fresh claim writes, in {@link #freshRow}'s order. */
  private static final String FRESH_COLUMNS =
      "(scope, idem_key, state, fingerprint, fence, lease_expires_at_ns, completed_at_ns,"
          + " retain_from_ns, claim_kind, row_version)";

  /**
   * The rest of what a claim of an existing row ({@code r}) sets. A takeover continues the request:
   * it keeps the generation and the recovery point; a fresh claim begins its own generation (NULL:
   * = fence).
   */
  private static final String RECLAIMED =
      """
      claim_kind = CASE WHEN r.state = 'I' THEN 'T' ELSE 'F' END, row_version = r.row_version + 1,
        generation_fence = CASE WHEN r.state = 'I' THEN COALESCE(r.generation_fence, r.fence) END,
        rp_name = CASE WHEN r.state = 'I' THEN r.rp_name END,
        rp_data = CASE WHEN r.state = 'I' THEN r.rp_data END,
        response_status = NULL, response_headers = NULL, response_body = NULL""";

  /** A fresh claim's row: in flight, a fence from the sequence, the lease from {@code n}. */
  private static String freshRow(String n, String seq) {
    return ":scope, :key, 'I', :fp, {seq}, {now} + :lease, NULL, {now} + :lease, 'F', 1"
        .replace("{seq}", seq)
        .replace("{now}", n);
  }

  /**
   * The claim as an upsert: a fresh row in flight, or on a claimable row (the same cases as {@link
   * #claimable}) the takeover or re-claim the claim statement makes; returns the row only when this
   * statement wrote it.
   */
  private static String upsertClaimSql(String t, String n, String seq) {
    return """
        INSERT INTO {table} AS r {freshColumns} VALUES ({freshRow})
        ON CONFLICT (scope, idem_key) DO UPDATE SET state = 'I',
          fingerprint = EXCLUDED.fingerprint, fence = GREATEST(EXCLUDED.fence, r.fence + 1),
          lease_expires_at_ns = EXCLUDED.lease_expires_at_ns, completed_at_ns = NULL,
          retain_from_ns = EXCLUDED.retain_from_ns,
          {reclaimed}
        WHERE {claimable}
        RETURNING {columns}, claim_kind"""
        .replace("{table}", t)
        .replace("{freshColumns}", FRESH_COLUMNS)
        .replace("{freshRow}", freshRow(n, seq))
        .replace("{claimable}", claimable("r.", n))
        .replace("{reclaimed}", RECLAIMED)
        .replace("{columns}", Row.COLUMNS);
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
    boolean serializable;
    try (PreparedStatement ps = prepare(firstLook, c, p);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      locked = rs.getBoolean("locked");
      serializable = rs.getBoolean("serializable");
      if (locked && !serializable) {
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
    if (serializable) {
      return claimBySerializableUpsert(c, p);
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
    throw new StoreUnavailableException(CLAIM_DID_NOT_SETTLE);
  }

  /**
   * The claim at {@code SERIALIZABLE}: the upsert, and only when it did not claim (a replay, a
   * mismatch, a live lease) a read of the row, which this transaction then only rolls back. The
   * completion updates the row it wrote through the same upsert's conflict ({@link
   * #completeInTransaction} with {@code insert}), not through an index read.
   */
  private TransactionClaim claimBySerializableUpsert(Connection c, ParamValues p)
      throws SQLException {
    for (int attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
      try (PreparedStatement ps = prepare(upsertClaim, c, p);
          ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return new TransactionClaim(
              Row.read(rs, false).claimedOutcome("T".equals(rs.getString("claim_kind"))), true);
        }
      }
      ClaimOutcome o = readOutcome(c, p);
      if (o != null) {
        return new TransactionClaim(o, false);
      }
    }
    throw new StoreUnavailableException(CLAIM_DID_NOT_SETTLE);
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
    // In updated: nextval is drawn under the row lock, so it is greater than every fence issued
    // before; GREATEST guards against a sequence that was reset by hand.
    return """
        WITH existing AS (
          SELECT {columns}, claim_kind, row_version, ({claimableHere}) AS claimable FROM {table}
          WHERE scope = :scope AND idem_key = :key{forUpdate}),
        inserted AS (
          INSERT INTO {table} {freshColumns} SELECT {freshRow}
          WHERE NOT EXISTS (SELECT 1 FROM existing)
          ON CONFLICT (scope, idem_key) DO NOTHING
          RETURNING {columns}, claim_kind),
        updated AS (
          UPDATE {table} AS r SET state = 'I', fingerprint = :fp,
            fence = GREATEST({seq}, r.fence + 1),
            lease_expires_at_ns = {now} + :lease, completed_at_ns = NULL,
            retain_from_ns = {now} + :lease,
            {reclaimed}
          WHERE r.scope = :scope AND r.idem_key = :key
            AND EXISTS (SELECT 1 FROM existing WHERE claimable) AND {guard}
          RETURNING {columns}, claim_kind)
        SELECT {columns}, claim_kind, TRUE AS won, {now} AS db_now FROM inserted
        UNION ALL SELECT {columns}, claim_kind, TRUE, {now} FROM updated
        UNION ALL SELECT {columns}, claim_kind, FALSE, {now} FROM existing
        WHERE NOT EXISTS (SELECT 1 FROM inserted) AND NOT EXISTS (SELECT 1 FROM updated)"""
        .replace("{claimableHere}", claimable("", n))
        .replace("{forUpdate}", locked ? " FOR UPDATE" : "")
        .replace(
            "{guard}",
            locked
                ? "r.row_version <= (SELECT row_version FROM existing)"
                : "(" + claimable("r.", n) + ")")
        .replace("{reclaimed}", RECLAIMED)
        .replace("{freshColumns}", FRESH_COLUMNS)
        .replace("{freshRow}", freshRow(n, seq))
        .replace("{seq}", seq)
        .replace("{table}", t)
        .replace("{columns}", Row.COLUMNS)
        .replace("{now}", n);
  }

  /**
   * Claimable by this request: released, completed with the window passed, or its own lease
   * expired.
   */
  private static String claimable(String alias, String now) {
    return """
        {a}state = 'R' OR ({a}state = 'C' AND {a}completed_at_ns <= {now} - :window)
          OR ({a}state = 'I' AND {a}lease_expires_at_ns <= {now} AND {a}fingerprint = :fp)"""
        .replace("{a}", alias)
        .replace("{now}", now);
  }

  @Override
  String clockExpression() {
    return "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000000 AS BIGINT)";
  }

  /**
   * One statement, whose batch is locked {@code SKIP LOCKED}: it never waits for, nor blocks, a
   * claim of a row it chose, so it takes no part in a lock-order cycle.
   */
  @Override
  int deleteBatch(Connection c, ParamValues p, String states) throws SQLException {
    return update(deleteExpiredSql(states), c, p);
  }

  private NamedSql deleteExpiredSql(String states) {
    String t = names.table();
    String n = now();
    // key-based and SKIP LOCKED: the batch never waits for, nor blocks, a claim of a row it
    // selected. The batch is chosen once, in a MATERIALIZED CTE: as an IN (subquery) the planner
    // may
    // put it on the inner side of a nested loop and run it again for each outer row, and a rerun's
    // FOR UPDATE skips the rows this statement already deleted, so its LIMIT reached past them and
    // the batch grew beyond the limit (seen: limit 2, 3 deleted).
    return deleteExpired.computeIfAbsent(
        states,
        s ->
            NamedSql.parse(
                """
                WITH batch AS MATERIALIZED (
                  SELECT scope, idem_key FROM {table}
                  WHERE {states} AND retain_from_ns <= {now} - :retention AND {notKept}
                  LIMIT :limit FOR UPDATE SKIP LOCKED)
                DELETE FROM {table} d USING batch
                WHERE d.scope = batch.scope AND d.idem_key = batch.idem_key
                  AND d.retain_from_ns <= {now} - :retention AND {dNotKept}"""
                    .replace("{dNotKept}", FencedWrites.notKeptAt("d.", n))
                    .replace("{notKept}", FencedWrites.notKeptAt(n))
                    .replace("{table}", t)
                    .replace("{states}", s)
                    .replace("{now}", n)));
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

  @Override
  @Nullable ClaimOutcome claimAbsent(Connection c, ParamValues p) throws SQLException {
    try (PreparedStatement ps = prepare(insertFresh, c, p);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? ClaimOutcome.Claimed.fresh(FenceToken.of(rs.getLong(1))) : null;
    }
  }

  /** One {@code UPDATE … FROM unnest(…)} per 4096 leases: see {@link PostgresRenewal}. */
  @Override
  public Set<Integer> renewAll(Connection c, List<OwnedLease> owned, ParamValues p)
      throws SQLException {
    return renewal.renewAll(c, owned, p);
  }
}
