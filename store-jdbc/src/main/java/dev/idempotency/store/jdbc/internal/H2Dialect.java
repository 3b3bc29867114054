package dev.idempotency.store.jdbc.internal;

import dev.idempotency.FenceToken;
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
 * H2 2.x: a claim locks the key's row ({@code SELECT … FOR UPDATE}), decides on it, and writes with
 * a plain statement: an {@code INSERT} for a new key (two sessions inserting it: one fails with a
 * duplicate key, and reads again), or an {@code UPDATE} conditional on the fence and state it
 * locked. No {@code MERGE}: see {@link #claimOnce}.
 */
final class H2Dialect extends SqlDialect {
  /** The store's logger, named after the public class by which users configure logging. */
  private static final System.Logger LOG =
      System.getLogger("dev.idempotency.store.jdbc.JdbcKeyStore");

  private final NamedSql lockRow;
  private final NamedSql insertFresh;
  private final NamedSql claimAgain;
  private final NamedSql takeOver;

  H2Dialect(Names names, boolean serverClock, int queryTimeoutSeconds) {
    super(names, serverClock, queryTimeoutSeconds);
    String t = names.table();
    String n = now();
    String seq = "NEXT VALUE FOR " + names.sequence();
    lockRow =
        NamedSql.parse(
            "SELECT {columns}, {now} AS db_now FROM {table} WHERE scope = :scope AND idem_key = :key"
                    .replace("{columns}", Row.COLUMNS)
                    .replace("{table}", t)
                    .replace("{now}", n)
                + " FOR UPDATE");
    insertFresh =
        NamedSql.parse(
            """
            INSERT INTO {table} (scope, idem_key, state, fingerprint, fence, lease_expires_at_ns,
              completed_at_ns, retain_from_ns, claim_kind, row_version)
            VALUES (:scope, :key, 'I', :fp, {seq}, {now} + :lease, NULL, {now} + :lease, 'F', 1)"""
                .replace("{table}", t)
                .replace("{seq}", seq)
                .replace("{now}", n));
    // both SET lists read the row's old values on their right-hand sides
    String claimed =
        """
        fingerprint = :fp, fence = GREATEST({seq}, fence + 1), lease_expires_at_ns = {now} + :lease,
          retain_from_ns = {now} + :lease, completed_at_ns = NULL, response_status = NULL,
          response_headers = NULL, response_body = NULL, row_version = row_version + 1, state = 'I'"""
            .replace("{seq}", seq)
            .replace("{now}", n);
    String locked = " WHERE scope = :scope AND idem_key = :key AND fence = :fence AND state ";
    claimAgain =
        NamedSql.parse(
            "UPDATE "
                + t
                + " SET claim_kind = 'F', generation_fence = NULL, rp_name = NULL, rp_data = NULL, "
                + claimed
                + locked
                + "<> 'I'");
    takeOver =
        NamedSql.parse(
            "UPDATE "
                + t
                + " SET claim_kind = 'T', generation_fence = COALESCE(generation_fence, fence), "
                + claimed
                + locked
                + "= 'I'");
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
   * of its own ({@link #bounded}). An embedded database has no network to hang on.
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

  /** One statement's execution, for {@link #bounded}. */
  private interface Execution<T> {
    T run() throws SQLException;
  }

  /**
   * Runs a claim's statement within the statement timeout: H2 waits on another transaction's
   * uncommitted entry of the key (a one-transaction run's record) in a loop that ignores {@code
   * LOCK_TIMEOUT}, as long as that transaction stays open. A claim cancelled at the timeout fails
   * as a lock timeout (HYT00), which the store answers in flight.
   */
  private <T> T bounded(PreparedStatement ps, Connection c, Execution<T> execution)
      throws SQLException {
    StatementDeadline deadline = StatementDeadline.start(ps, queryTimeoutSeconds() * 1000L);
    T result;
    try {
      result = execution.run();
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
        if (result instanceof ResultSet rs) {
          rs.close();
        }
        throw e;
      }
    }
    return result;
  }

  @Override
  public List<String> validationStatements() {
    List<String> l = super.validationStatements();
    l.add("SELECT NEXT VALUE FOR " + names.sequence());
    return l;
  }

  /**
   * The claim, in a transaction of its own unless the caller's is open: the row's lock first
   * ({@code SELECT … FOR UPDATE}, bounded by H2's {@code LOCK_TIMEOUT}), which also reads the row;
   * the decision on that row, which nobody else can change until this transaction ends; then one
   * plain write: an {@code INSERT} where there is no row (a session that inserted the key first
   * makes it fail with a duplicate key, and the claim decides again), or an {@code UPDATE} of the
   * locked row conditional on the fence and state it was locked with, whose count says whether it
   * claimed; a read of the claimed row answers it.
   *
   * <p>Why not one {@code MERGE}, as H2 could: under load H2 2.5.252's {@code MERGE} answered
   * claims it had not made when it waited for another session's write of the key inside the
   * statement (it returned the row it would have written while the record kept the other session's
   * state). Here every decision is made in Java on the locked row, and the only writes are plain
   * ones, as the fenced writes'. H2 2.5.252 still lost a claim's write to another session's under
   * load in the TCK's long concurrent histories, with this form too, rarely; 2.4.240, which the
   * project tests with, did not ({@code docs/stores-jdbc.md}, "The H2 version"). {@code lostBefore}
   * changes nothing here. A record the claim cannot take (complete, in flight under a live lease,
   * another fingerprint's) mostly never gets here: the read that opens every claim ({@link
   * SqlDialect#claim}) answers it, before any lock; one that became so since is answered from the
   * locked row.
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
      ClaimOutcome outcome = decideOnLockedRow(c, p);
      if (own) {
        c.commit();
      }
      committed = true;
      return outcome;
    } finally {
      if (own) {
        restoreAutoCommit(c, committed);
      }
    }
  }

  private @Nullable ClaimOutcome decideOnLockedRow(Connection c, ParamValues p)
      throws SQLException {
    Row locked = null;
    long dbNow = 0;
    try (PreparedStatement ps = prepare(lockRow, c, p);
        ResultSet rs = bounded(ps, c, ps::executeQuery)) {
      if (rs.next()) {
        locked = Row.read(rs, false);
        dbNow = rs.getLong("db_now");
      }
    }
    boolean takeover = false;
    NamedSql write = insertFresh;
    if (locked != null) {
      ClaimOutcome taken = locked.outcomeOfClaim(dbNow, p.fingerprint(), p.window());
      if (taken != null) {
        return taken; // not claimable, and the row cannot change before this transaction ends
      }
      takeover = locked.state() == 'I';
      write = takeover ? takeOver : claimAgain;
      p.fence(FenceToken.of(locked.fence()));
    }
    try (PreparedStatement ps = prepare(write, c, p)) {
      if (bounded(ps, c, ps::executeUpdate) != 1) {
        return null; // the row is not as locked: decide again on the committed record
      }
    }
    Optional<Row> claimed = read(c, p);
    if (claimed.isEmpty() || claimed.get().state() != 'I') {
      return null;
    }
    return claimed.get().claimedOutcome(takeover);
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
}
