package dev.idempotency.store.jdbc.internal;

import dev.idempotency.spi.ClaimOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * H2 2.x: the standard {@code MERGE INTO … USING … WHEN MATCHED … WHEN NOT MATCHED}, read through
 * {@code FINAL TABLE}, which H2 accepts in every compatibility mode (its MySQL and PostgreSQL
 * upserts depend on the mode). The matched branch always updates the row, setting each column to
 * itself unless the record is claimable, and records in {@code claim_kind} what this statement
 * decided ({@code F} fresh, {@code T} takeover, {@code N} nothing), so the one statement returns
 * the row in every outcome. Two sessions inserting the same new key: one fails with a duplicate
 * key, and reads again.
 */
final class H2Dialect extends SqlDialect {
  /** The store's logger, named after the public class by which users configure logging. */
  private static final System.Logger LOG =
      System.getLogger("dev.idempotency.store.jdbc.JdbcKeyStore");

  private final NamedSql claim;
  private final NamedSql lockRow;

  H2Dialect(Names names, boolean serverClock, int queryTimeoutSeconds) {
    super(names, serverClock, queryTimeoutSeconds);
    String t = names.table();
    String n = now();
    String seq = "NEXT VALUE FOR " + names.sequence();
    String absent =
        "(r.state = 'R' OR (r.state = 'C' AND r.completed_at_ns <= {now} - :window))"
            .replace("{now}", n);
    String takeover =
        "(r.state = 'I' AND r.lease_expires_at_ns <= {now} AND r.fingerprint = s.fp)"
            .replace("{now}", n);
    String won = "(" + absent + " OR " + takeover + ")";
    lockRow =
        NamedSql.parse(
            "SELECT fence FROM " + t + " WHERE scope = :scope AND idem_key = :key FOR UPDATE");
    claim =
        NamedSql.parse(
            """
            SELECT {columns}, claim_kind, {now} AS db_now FROM FINAL TABLE (MERGE INTO {table} AS r
              USING (VALUES (CAST(:scope AS VARCHAR(255)), CAST(:key AS VARCHAR(255)),
                CAST(:fp AS VARBINARY(64)), CAST(:lease AS BIGINT))) AS s(scope, idem_key, fp, lease)
              ON r.scope = s.scope AND r.idem_key = s.idem_key
              WHEN MATCHED THEN UPDATE SET
                claim_kind = CASE WHEN {absent} THEN 'F' WHEN {takeover} THEN 'T' ELSE 'N' END,
                fence = CASE WHEN {won} THEN GREATEST({seq}, r.fence + 1) ELSE r.fence END,
                generation_fence = CASE WHEN {takeover} THEN COALESCE(r.generation_fence, r.fence)
                  WHEN {absent} THEN NULL ELSE r.generation_fence END,
                rp_name = CASE WHEN {absent} THEN NULL ELSE r.rp_name END,
                rp_data = CASE WHEN {absent} THEN NULL ELSE r.rp_data END,
                fingerprint = CASE WHEN {won} THEN s.fp ELSE r.fingerprint END,
                lease_expires_at_ns = CASE WHEN {won} THEN {now} + s.lease
                  ELSE r.lease_expires_at_ns END,
                retain_from_ns = CASE WHEN {won} THEN {now} + s.lease ELSE r.retain_from_ns END,
                completed_at_ns = CASE WHEN {won} THEN NULL ELSE r.completed_at_ns END,
                response_status = CASE WHEN {won} THEN NULL ELSE r.response_status END,
                response_headers = CASE WHEN {won} THEN NULL ELSE r.response_headers END,
                response_body = CASE WHEN {won} THEN NULL ELSE r.response_body END,
                row_version = CASE WHEN {won} THEN r.row_version + 1 ELSE r.row_version END,
                state = CASE WHEN {won} THEN 'I' ELSE r.state END
              WHEN NOT MATCHED THEN INSERT (scope, idem_key, state, fingerprint, fence,
                lease_expires_at_ns, completed_at_ns, retain_from_ns, claim_kind, row_version)
              VALUES (s.scope, s.idem_key, 'I', s.fp, {seq}, {now} + s.lease, NULL,
                {now} + s.lease, 'F', 1))"""
                .replace("{won}", won)
                .replace("{absent}", absent)
                .replace("{takeover}", takeover)
                .replace("{seq}", seq)
                .replace("{columns}", Row.COLUMNS)
                .replace("{table}", t)
                .replace("{now}", n));
  }

  @Override
  String clockExpression() {
    return "DATEDIFF(NANOSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)";
  }

  /**
   * H2 fixes {@code CURRENT_TIMESTAMP} for a whole transaction from its first use (in its regular,
   * PostgreSQL and legacy modes; per command in the others), so a fenced write at the end of a long
   * phase whose work read the clock early would date its lease from then, already expired perhaps.
   * The phase pins the clock as it opens ({@link #pinTransactionClock}), and its fenced write takes
   * the latest of: the clock as the statement sees it (right in the per-command modes), the pinned
   * value plus the time elapsed since, and this JVM's clock, because H2 may date the pinned read a
   * few milliseconds early (seen under load: 6 ms); the JVM's clock is the database's own for an
   * embedded H2, and only lengthens the lease of a server whose clock runs behind. Outside a phase
   * the three parameters are 0.
   */
  @Override
  String fencedNow() {
    return serverClock
        ? """
            GREATEST({clock}, CAST(:pinned AS BIGINT) + CAST(:elapsed AS BIGINT),
              CAST(:wallNow AS BIGINT))"""
            .replace("{clock}", clockExpression())
        : now();
  }

  @Override
  public @Nullable PinnedClock pinTransactionClock(Connection c) throws SQLException {
    if (!serverClock) {
      return null;
    }
    // read before the clock is pinned: the elapsed time measured from here can only overstate the
    // phase's length
    long before = System.nanoTime();
    try (PreparedStatement ps = c.prepareStatement("SELECT " + clockExpression());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new PinnedClock(rs.getLong(1), before);
    }
  }

  /**
   * No query timeout on H2: its driver runs a {@code SET QUERY_TIMEOUT} command for every statement
   * that sets one (measured: 118 µs for {@code SELECT 1} with it, 6 µs without; the claim went from
   * 11 µs to 224 µs) and leaves it on the pooled session, and H2 bounds a row-lock wait by itself
   * ({@code LOCK_TIMEOUT}, 2 s by default, which ends as the same StoreUnavailableException). The
   * one wait it does not bound, a claim on another transaction's uncommitted record, has a deadline
   * of its own ({@link #executeBounded}). An embedded database has no network to hang on.
   */
  @Override
  PreparedStatement withTimeout(PreparedStatement ps, int seconds) {
    return ps;
  }

  /** As {@link #withTimeout}: H2's own {@code LOCK_TIMEOUT} bounds the work's lock waits. */
  @Override
  public Connection withStatementTimeout(Connection c) {
    return c;
  }

  /**
   * A literal: H2 2.5 returns wrong rows when a cached statement's FETCH FIRST limit is a
   * parameter.
   */
  @Override
  String limitClause(int limit) {
    return " FETCH FIRST " + limit + " ROWS ONLY";
  }

  /**
   * H2 2.5.252 miscounts a {@code DELETE} with {@code FETCH FIRST}, over-deletes with a limited
   * {@code IN} subquery, and returns duplicate and stale rows for {@code state IN (…) … ORDER BY …
   * FETCH FIRST} over the {@code (state, retain_from_ns)} index (2.3.232 does not), so the batch's
   * read names the records by {@code state <> 'R'}; each delete re-checks the record by its key.
   */
  @Override
  String liveStates() {
    return "state <> 'R'";
  }

  @Override
  String batchOrder() {
    return " ORDER BY retain_from_ns";
  }

  /**
   * H2 writes a file database's commits to disk up to {@code WRITE_DELAY} ms (default 500) after
   * the commit, and has no redo log: a process killed in that time loses them, completed records
   * included, and a client that already holds the response then gets its retry executed again. Said
   * at start-up, naming the setting; not an error, because a development database may accept it. An
   * in-memory database (no path) has nothing to lose this way.
   */
  @Override
  public void warnAboutSettings(Connection c) throws SQLException {
    String path;
    List<String> delays = new ArrayList<>();
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT DATABASE_PATH()")) {
        path = rs.next() ? rs.getString(1) : null;
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
        while (rs.next()) {
          delays.add(rs.getString(1));
        }
      }
    }
    if (!c.getAutoCommit()) {
      c.rollback();
    }
    if (path != null && delays.stream().anyMatch(v -> !"0".equals(v))) {
      LOG.log(
          System.Logger.Level.WARNING,
          "The H2 database "
              + path
              + " writes commits to disk up to WRITE_DELAY="
              + String.join("/", delays)
              + " ms after they return: a process killed in that time loses them, and"
              + " idempotency records with them (a completed request would run again on its retry). Add"
              + " ;WRITE_DELAY=0 to the JDBC URL of a file database whose records must survive a crash.");
    }
  }

  /**
   * H2 checks a unique index against another transaction's uncommitted row by looping, without its
   * {@code LOCK_TIMEOUT} (measured on 2.x: a claim spun for as long as the first one-transaction
   * request stayed open), and only a query timeout ends that loop. Its session setting costs two
   * commands per run (read, set) and one after it (put back), where a timeout on every statement
   * would cost one per statement. A session whose own {@code QUERY_TIMEOUT} (the application's, on
   * its pooled connection) is already as short is left alone; a longer one, or none, is put back
   * afterwards.
   */
  @Override
  public long boundLockWaits(Connection c) throws SQLException {
    long ours = queryTimeoutSeconds() * 1000L;
    try (Statement s = c.createStatement()) {
      long previous;
      try (ResultSet rs =
          s.executeQuery(
              "SELECT CAST(SETTING_VALUE AS BIGINT) FROM INFORMATION_SCHEMA.SETTINGS"
                  + " WHERE SETTING_NAME = 'QUERY_TIMEOUT'")) {
        previous = rs.next() ? rs.getLong(1) : 0;
      }
      if (previous > 0 && previous <= ours) {
        return NOTHING_BOUND;
      }
      s.execute("SET QUERY_TIMEOUT " + ours);
      return previous;
    }
  }

  @Override
  public void unboundLockWaits(Connection c, long previous) throws SQLException {
    if (previous == NOTHING_BOUND) {
      return;
    }
    try (Statement s = c.createStatement()) {
      s.execute("SET QUERY_TIMEOUT " + previous);
    }
  }

  /**
   * Runs the claim within the statement timeout: H2 waits on another transaction's uncommitted
   * entry of the key (a one-transaction run's record) in a loop that ignores {@code LOCK_TIMEOUT},
   * as long as that transaction stays open. A claim cancelled at the timeout fails as a lock
   * timeout (HYT00), which the store answers in flight.
   */
  private ResultSet executeBounded(PreparedStatement ps, Connection c) throws SQLException {
    StatementDeadline deadline = StatementDeadline.start(ps, queryTimeoutSeconds() * 1000L);
    ResultSet rs;
    try {
      rs = ps.executeQuery();
    } catch (SQLException e) {
      if (deadline.end()) {
        throw new SQLTimeoutException(
            "the claim waited "
                + queryTimeoutSeconds()
                + " s (the statement timeout) for another transaction's uncommitted record of the"
                + " key",
            "HYT00",
            e);
      }
      throw e;
    }
    if (deadline.end()) {
      try {
        StatementDeadline.absorbCancel(c);
      } catch (SQLException e) {
        rs.close();
        throw e;
      }
    }
    return rs;
  }

  @Override
  public List<String> validationStatements() {
    List<String> l = super.validationStatements();
    l.add("SELECT NEXT VALUE FOR " + names.sequence());
    return l;
  }

  /**
   * The claim, in a transaction of its own unless the caller's is open: the row's lock first
   * ({@code SELECT … FOR UPDATE}, bounded by H2's {@code LOCK_TIMEOUT}), then the {@code MERGE},
   * which then decides on a row nobody else can change, then a read that confirms a won claim.
   *
   * <p>Under load H2's {@code MERGE} answered claims it had not made when it waited for another
   * session's write of the key inside the statement: it returned the row it would have written (a
   * fresh claim under a fence) while the record kept the other session's state (in flight under
   * another fence, or complete), and it reported a claim it had made as in flight under a later
   * owner's lease. Both were found by the TCK's concurrent histories (rule 2.6) on a busy two-core
   * machine. Holding the row's lock first leaves the statement nothing to wait for on an existing
   * row; two sessions inserting a new key still race on its unique index, and the read after a won
   * claim catches a loser that was told it won: unless the row shows the record in flight under the
   * claim's fence, the claim decides again on the committed record ({@code SqlDialect#claim}), as a
   * claim that lost the race does. In a claim's own transaction that read comes after the commit,
   * so that it judges the committed record, not the transaction's view of its own write: in the
   * TCK's long concurrent histories, one claim in 1,200 histories was told it won a just-released
   * key while the record went on under the fence of another claim racing it. Inside a
   * one-transaction request's open transaction the read can only see that transaction's view.
   * {@code lostBefore} changes nothing here. A record the claim cannot take (complete, in flight
   * under a live lease, another fingerprint's) never gets here: the read that opens every claim
   * ({@link SqlDialect#claim}) answers it, before any lock.
   */
  @Override
  @Nullable ClaimOutcome claimOnce(Connection c, ParamValues p, boolean lostBefore)
      throws SQLException {
    boolean own = c.getAutoCommit();
    if (own) {
      c.setAutoCommit(false);
    }
    boolean committed = false;
    try {
      try (PreparedStatement ps = prepare(lockRow, c, p);
          ResultSet locked = executeBounded(ps, c)) {
        locked.next(); // the row, if there is one, stays locked until this claim commits
      }
      ClaimOutcome outcome = merge(c, p);
      if (own) {
        c.commit();
      }
      committed = true;
      return won(c, p, outcome); // after the commit, a read of the committed record
    } finally {
      if (own) {
        restoreAutoCommit(c, committed);
      }
    }
  }

  /**
   * Rolls back a claim that did not commit, and puts auto-commit back. A claim that committed is
   * the caller's even if that fails: reported as failed, its record would sit in flight with no
   * owner until its lease ended; the pool's validation discards a connection left broken.
   */
  private static void restoreAutoCommit(Connection c, boolean committed) throws SQLException {
    try {
      if (!committed) {
        c.rollback();
      }
      c.setAutoCommit(true);
    } catch (SQLException e) {
      if (!committed) {
        throw e;
      }
    }
  }

  private @Nullable ClaimOutcome merge(Connection c, ParamValues p) throws SQLException {
    Row row;
    String kind;
    long dbNow;
    try (PreparedStatement ps = prepare(claim, c, p);
        ResultSet rs = executeBounded(ps, c)) {
      if (!rs.next()) {
        return null;
      }
      row = Row.read(rs, false);
      kind = rs.getString("claim_kind");
      dbNow = rs.getLong("db_now");
    }
    if (!"F".equals(kind) && !"T".equals(kind)) {
      return row.outcomeOfClaim(dbNow, p.fingerprint(), p.window());
    }
    return row.claimedOutcome("T".equals(kind));
  }

  /** {@code outcome}, unless it is a won claim the record does not show: then null. */
  private @Nullable ClaimOutcome won(Connection c, ParamValues p, @Nullable ClaimOutcome outcome)
      throws SQLException {
    return outcome instanceof ClaimOutcome.Claimed won && !holds(c, p, won) ? null : outcome;
  }

  /** Whether the record, as {@code c} reads it now, is in flight under {@code won}'s fence. */
  private boolean holds(Connection c, ParamValues p, ClaimOutcome.Claimed won) throws SQLException {
    Optional<Row> now = read(c, p);
    return now.isPresent() && now.get().state() == 'I' && now.get().fence() == won.fence().value();
  }
}
