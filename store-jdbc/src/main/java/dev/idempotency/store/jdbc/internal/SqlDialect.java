package dev.idempotency.store.jdbc.internal;

import static dev.idempotency.store.jdbc.internal.Param.LIMIT;
import static dev.idempotency.store.jdbc.internal.Param.NOW;

import dev.idempotency.LeaseLostException;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSnapshot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of one dialect for one table and one clock source. Every statement that decides something
 * is a single statement the database arbitrates; the Java side only interprets what it returns.
 * Immutable and thread-safe.
 *
 * <p>Parameters are {@link Param}s, bound from a call's {@link ParamValues} ({@link
 * #values(Instant)}): {@code :scope :key :fp} identify the record and request, {@code :now} is the
 * engine's time in epoch nanoseconds (absent from the SQL with the database clock), {@code :lease
 * :window :retention} are nanoseconds, {@code :fence} the owner's token.
 *
 * <p>The statements every dialect shares, the claim's decision loop and the one-transaction claim
 * and completion that PostgreSQL overrides, which read best beside the SQL they run; each dialect
 * adds its own statements in its subclass. The owner's writes to its record are {@link
 * FencedWrites}', the statements over many records {@link Batches}'.
 */
public abstract class SqlDialect {
  /**
   * More attempts than contention needs. The loop exists for same-key insert races, deadlocks
   * between same-key inserts (MySQL), and rows that changed after the first attempt's snapshot;
   * from the second attempt on a dialect decides under the row lock, so a claim settles in a few
   * unless deadlocks repeat.
   */
  static final int MAX_CLAIM_ATTEMPTS = 16;

  static final String CLAIM_DID_NOT_SETTLE =
      "claim did not settle after " + MAX_CLAIM_ATTEMPTS + " attempts: the record kept changing";

  final Names names;
  final boolean serverClock;

  /** {@link java.sql.Statement#setQueryTimeout} of every statement of the store's own. */
  private final int queryTimeoutSeconds;

  private final NamedSql select;
  private final FencedWrites fencedWrites;
  private final Batches batches = new Batches(this);
  private final Listing listing = new Listing(this);

  SqlDialect(Names names, boolean serverClock, int queryTimeoutSeconds) {
    this.names = names;
    this.serverClock = serverClock;
    this.queryTimeoutSeconds = queryTimeoutSeconds;
    this.select =
        NamedSql.parse(
            """
            SELECT {columns}, {now} AS db_now FROM {table}
            WHERE scope = :scope AND idem_key = :key"""
                .replace("{columns}", Row.COLUMNS)
                .replace("{now}", now())
                .replace("{table}", names.table()));
    this.fencedWrites = new FencedWrites(this);
  }

  /**
   * The dialect for {@code name} (a {@code Dialect} constant's name).
   *
   * @param queryTimeoutSeconds the query timeout of each of the store's statements, at least 1
   * @param mysqlStatement whether MariaDB, too, claims with MySQL's statement (decision in the
   *     insert id) instead of its own {@code RETURNING} one: for tests of that statement
   */
  public static SqlDialect of(
      String name,
      Names names,
      boolean serverClock,
      int queryTimeoutSeconds,
      boolean mysqlStatement) {
    return switch (name) {
      case "POSTGRESQL" -> new PostgresDialect(names, serverClock, queryTimeoutSeconds);
      case "MYSQL" ->
          new MySqlDialect(
              names, serverClock, queryTimeoutSeconds, mysqlStatement ? Boolean.FALSE : null);
      case "H2" -> new H2Dialect(names, serverClock, queryTimeoutSeconds);
      default -> throw new IllegalArgumentException("unknown dialect " + name);
    };
  }

  /**
   * The values of one call's statements, {@code :now} set from the engine's {@code now} (0 with the
   * database clock, whose statements do not name it).
   *
   * @throws NullPointerException if {@code now} is null
   * @throws IllegalArgumentException if the engine's clock judges and {@code now} is outside the
   *     store's range
   */
  public ParamValues values(Instant now) {
    Objects.requireNonNull(now, "now");
    return new ParamValues(scopeAsBytes(), serverClock ? 0L : Nanos.of(now));
  }

  /**
   * Prepares {@code sql} with {@code p} bound and the store's query timeout (with the {@link
   * TransferAllowance} of a response) set: a statement that waits on a stalled transaction's lock,
   * or on a database that stopped answering, ends with a timeout (StoreUnavailableException)
   * instead of holding the caller, for example the engine's one heartbeat thread.
   */
  PreparedStatement prepare(NamedSql sql, Connection c, ParamValues p) throws SQLException {
    return withTimeout(sql.prepare(c, p), TransferAllowance.timeout(p, queryTimeoutSeconds));
  }

  /** {@link #prepare}, asking for generated keys. */
  PreparedStatement prepareWithKeys(NamedSql sql, Connection c, ParamValues p) throws SQLException {
    return withTimeout(
        sql.prepareWithKeys(c, p), TransferAllowance.timeout(p, queryTimeoutSeconds));
  }

  /** Sets the query timeout {@code seconds} on {@code ps}; closes it on failure. */
  PreparedStatement withTimeout(PreparedStatement ps, int seconds) throws SQLException {
    try {
      ps.setQueryTimeout(seconds);
      return ps;
    } catch (SQLException | RuntimeException e) {
      try {
        ps.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * {@code c} as handed to a phase's work: every statement the work creates gets the store's query
   * timeout, so work blocked on a lock (one its own caller holds in another open transaction, say)
   * ends as an error instead of holding the phase, and the record with it, forever. The work may
   * set its own timeout on a statement. See {@link TimeoutConnection} for what the returned
   * connection is.
   */
  public Connection withStatementTimeout(Connection c) {
    return TimeoutConnection.wrap(c, queryTimeoutSeconds);
  }

  /**
   * Called as a one-transaction run opens, before its claim: makes every statement of the
   * connection's session end at the store's query timeout, for a dialect whose own statements do
   * not carry one (H2); others do nothing. {@link #unboundLockWaits} undoes it before the
   * connection goes back to the pool.
   *
   * @return what {@link #unboundLockWaits} puts back, or {@link #NOTHING_BOUND}
   */
  public long boundLockWaits(Connection c) throws SQLException {
    return NOTHING_BOUND;
  }

  /** {@link #boundLockWaits} changed nothing. */
  public static final long NOTHING_BOUND = -1;

  /**
   * Undoes {@link #boundLockWaits}.
   *
   * @param previous what it returned
   */
  public void unboundLockWaits(Connection c, long previous) throws SQLException {}

  /** The query timeout of the store's statements, in seconds. */
  int queryTimeoutSeconds() {
    return queryTimeoutSeconds;
  }

  /**
   * Looks at database settings that weaken what the store promises and logs a warning naming each;
   * called once, at start-up, on the connection that checked the schema. Leaves that connection's
   * transaction, if any, rolled back.
   */
  public void warnAboutSettings(Connection c) throws SQLException {}

  /** The database clock as epoch nanoseconds, constant within one statement. */
  abstract String clockExpression();

  /** The engine's time as a bound parameter. */
  String engineNow() {
    return "CAST(" + NOW + " AS BIGINT)";
  }

  /** The time every decision is judged by: the database clock or the engine's {@code :now}. */
  final String now() {
    return serverClock ? "(" + clockExpression() + ")" : engineNow();
  }

  /**
   * The time of a fenced write: {@link #now()}, or where the database clock stands still for a
   * whole transaction (H2) a time no earlier than the clock pinned as the phase opened plus {@code
   * :elapsed} nanoseconds, so that the write at the end of a long phase does not date its lease
   * from when the phase began. See {@link #pinTransactionClock}.
   */
  String fencedNow() {
    return now();
  }

  /**
   * Called as a transactional phase opens, before its work runs: a dialect whose database clock is
   * fixed per transaction from its first use (H2) reads it now and returns it with {@link
   * System#nanoTime()} read just before, so that the phase's fenced write can add the time since
   * ({@code :pinned}, {@code :elapsed}); other dialects do nothing and return {@code null}.
   */
  public @Nullable PinnedClock pinTransactionClock(Connection c) throws SQLException {
    return null;
  }

  /**
   * The database clock as a phase opened ({@code databaseNanos}), and {@link System#nanoTime()}
   * just before.
   */
  public record PinnedClock(long databaseNanos, long nanoTime) {}

  /**
   * A row-limit clause for {@code limit} rows (the {@code :limit} parameter, where the dialect
   * binds it well).
   */
  String limitClause(int limit) {
    return " LIMIT " + LIMIT;
  }

  /** Whether {@code scope} is stored as UTF-8 bytes (MySQL: binary, no-pad comparison). */
  boolean scopeAsBytes() {
    return false;
  }

  /**
   * A table hint that makes a statement reach rows through the primary key, where the optimizer
   * might otherwise pick the {@code (state, retain_from_ns)} index for a condition on {@code state}
   * and lock in that index's order (see {@link Batches}); none by default.
   */
  String byPrimaryKey() {
    return "";
  }

  /** The condition on {@code state} of the records (not the released rows) past retention. */
  String liveStates() {
    return "state IN ('C', 'I')";
  }

  /** How the read that chooses a reaper's batch orders it, if at all; none by default. */
  String batchOrder() {
    return "";
  }

  /**
   * Statements that fail, with a schema SQLState, when the table, a column or the sequence is
   * missing.
   */
  public List<String> validationStatements() {
    return new ArrayList<>(
        List.of(
            "SELECT %s, retain_from_ns, keep_until_ns, claim_kind, row_version FROM %s WHERE 1 = 0"
                .formatted(Row.COLUMNS, names.table())));
  }

  /**
   * One attempt of the claim's arbitrating statement, made when the read that opens the claim found
   * no record, or one this request may claim (released, past the window, its own expired lease).
   * Returns the outcome, or {@code null} when the statement saw no row it may decide by (a same-key
   * insert race): the caller reads again.
   *
   * @param p the record, {@code :fp}, {@code :lease} and {@code :window}
   * @param lostBefore whether an earlier attempt of this claim did not settle: a dialect whose
   *     statement decides from a snapshot must now decide under the row lock, so that the claim
   *     cannot lose every round
   */
  abstract @Nullable ClaimOutcome claimOnce(Connection c, ParamValues p, boolean lostBefore)
      throws SQLException;

  /**
   * The claim of a key whose opening read found no record: by default the arbitrating statement. A
   * dialect may send a plain insert instead, cheaper than a statement that also arbitrates an
   * existing row; the unique constraint still arbitrates it. A record inserted meanwhile makes it
   * return {@code null} (the caller reads again) or fail with a duplicate key (the caller rolls
   * back a transaction of its own and runs the arbitrating statement), as a claim that lost an
   * insert race does.
   */
  @Nullable ClaimOutcome claimAbsent(Connection c, ParamValues p) throws SQLException {
    return claimOnce(c, p, false);
  }

  /**
   * The claim: one plain primary-key read of the committed record first, which alone decides every
   * claim that cannot win (a replay, a live lease, another request's key) with no lock, no write
   * and no commit; only when the record is absent ({@link #claimAbsent}) or claimable, the
   * dialect's arbitrating statement ({@link #claimOnce}), which decides again on the newest row:
   * the unique constraint arbitrates an insert, and a takeover or re-claim is a conditional write
   * on the row as it is then. A record written, taken over or deleted between the read and that
   * statement is therefore decided by the statement, not by the read. The read is the claim's first
   * statement on a connection the store took from the pool, so under {@code REPEATABLE READ} its
   * snapshot begins there and is not older than the claim; after the arbitrating statement a
   * dialect reads again only where that read sees the newest row ({@link #claimOnce}'s own write,
   * or a new snapshot after a rollback).
   *
   * @param autoCommit whether {@code c} commits each statement (otherwise a failed attempt is
   *     rolled back here)
   * @param p the record, {@code :fp}, {@code :lease} and {@code :window}
   */
  public ClaimOutcome claim(Connection c, boolean autoCommit, ParamValues p) throws SQLException {
    boolean absent;
    try (PreparedStatement ps = prepare(select, c, p);
        ResultSet rs = ps.executeQuery()) {
      absent = !rs.next();
      if (!absent) {
        ClaimOutcome decided =
            Row.read(rs, scopeAsBytes())
                .outcomeOfClaim(rs.getLong("db_now"), p.fingerprint(), p.window());
        if (decided != null) {
          return decided;
        }
      }
    }
    for (int attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
      try {
        ClaimOutcome o = attempt == 1 && absent ? claimAbsent(c, p) : claimOnce(c, p, attempt > 1);
        if (o == null) {
          o = readOutcome(c, p);
        }
        if (o != null) {
          return o;
        }
      } catch (SQLException e) {
        if (!(SqlErrors.isDuplicateKey(e) || SqlErrors.isRetryable(e))
            || attempt == MAX_CLAIM_ATTEMPTS) {
          throw e;
        }
        if (!autoCommit) {
          c.rollback();
        }
      }
    }
    throw new StoreUnavailableException(CLAIM_DID_NOT_SETTLE);
  }

  /**
   * The claim of a one-transaction request, on its open transaction.
   *
   * @param outcome the claim's outcome
   * @param insertAtCompletion whether the completion writes the record with an insert ({@link
   *     #completeInTransaction}; PostgreSQL: an insert of the complete record that, at {@code
   *     SERIALIZABLE}, updates the row the claim wrote in flight through its conflict); otherwise
   *     the claim wrote it in flight and the completion is the fenced update
   */
  public record TransactionClaim(ClaimOutcome outcome, boolean insertAtCompletion) {}

  /**
   * Claims for a one-transaction request, on {@code c}, whose transaction stays open: by default
   * the claim statement, which writes the record in flight (uncommitted, so no other transaction
   * sees it) for the completion to update.
   */
  public TransactionClaim claimInTransaction(Connection c, ParamValues p) throws SQLException {
    return new TransactionClaim(claim(c, false, p), false);
  }

  /**
   * Completes a one-transaction request's record on its transaction: the fenced {@link #complete},
   * or the insert of the complete record when the claim left it unwritten.
   *
   * @param p the completion's values and the claim's fingerprint
   * @throws SQLException with SQLState {@code 40001} when the insert found the record written
   *     meanwhile: the transaction runs again and its claim then sees the record
   */
  public void completeInTransaction(Connection c, ParamValues p, boolean insert)
      throws SQLException {
    complete(c, p);
  }

  /**
   * Reads the committed record and decides by it; {@code null} when it is absent or claimable
   * (claim again).
   */
  @Nullable ClaimOutcome readOutcome(Connection c, ParamValues p) throws SQLException {
    try (PreparedStatement ps = prepare(select, c, p);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      return Row.read(rs, scopeAsBytes())
          .outcomeOfClaim(rs.getLong("db_now"), p.fingerprint(), p.window());
    }
  }

  /** The record, or empty; released records count as absent. */
  public Optional<RecordSnapshot> lookup(Connection c, ParamValues p) throws SQLException {
    Optional<Row> row = read(c, p);
    return row.filter(r -> r.state() != 'R').map(Row::toSnapshot);
  }

  /** The raw row. */
  Optional<Row> read(Connection c, ParamValues p) throws SQLException {
    try (PreparedStatement ps = prepare(select, c, p);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(Row.read(rs, scopeAsBytes())) : Optional.empty();
    }
  }

  /**
   * The fenced writes ({@link FencedWrites}), each {@code UPDATE … WHERE fence = :fence AND state =
   * 'I'}, and each of them:
   *
   * @param p the record and {@code :fence}, and the write's own values
   * @throws LeaseLostException if the fence no longer holds (the exception says what the record
   *     looks like now)
   */
  public void heartbeat(Connection c, ParamValues p) throws SQLException {
    fencedWrites.heartbeat(c, p);
  }

  /** See {@link #heartbeat}; {@code p} also holds the lease and the recovery point. */
  public void checkpoint(Connection c, ParamValues p) throws SQLException {
    fencedWrites.checkpoint(c, p);
  }

  /** See {@link #heartbeat}; {@code p} also holds the response. */
  public void complete(Connection c, ParamValues p) throws SQLException {
    fencedWrites.complete(c, p);
  }

  /** See {@link #heartbeat}. */
  public void release(Connection c, ParamValues p) throws SQLException {
    fencedWrites.release(c, p);
  }

  /** See {@link FencedWrites#extendRetention}; {@code p} holds the fence and the instant. */
  public void extendRetention(Connection c, ParamValues p) throws SQLException {
    fencedWrites.extendRetention(c, p);
  }

  int update(NamedSql sql, Connection c, ParamValues p) throws SQLException {
    try (PreparedStatement ps = prepare(sql, c, p)) {
      return ps.executeUpdate();
    }
  }

  /** One lease to renew: the record's scope and key, and its owner's fence. */
  public record OwnedLease(String scope, String key, long fence) {}

  /**
   * Renews every lease in {@code owned} whose fence is still current and whose record is in flight,
   * and returns the positions in {@code owned} of those it did not renew (see {@link
   * Batches#renewAll}).
   *
   * @param p {@code :now} and {@code :lease}
   */
  public Set<Integer> renewAll(Connection c, List<OwnedLease> owned, ParamValues p)
      throws SQLException {
    return batches.renewAll(c, owned, p);
  }

  /**
   * In-flight records whose lease expired, oldest lease first.
   *
   * @param p {@code :now} and {@code :limit}
   */
  public List<RecordSnapshot> findAbandoned(Connection c, ParamValues p) throws SQLException {
    return batches.findAbandoned(c, p);
  }

  /** One page of a listing ({@link Listing}); {@code p} holds {@code :now}. */
  public RecordPage list(Connection c, RecordQuery query, ParamValues p) throws SQLException {
    return listing.list(c, query, p);
  }

  /**
   * Deletes one batch of records past retention and returns how many. Released rows (tombstones
   * that keep the fence, absent to the SPI) past retention go in a batch of their own first, not
   * counted: they are not records.
   *
   * @param p {@code :now}, {@code :retention} and {@code :limit}
   */
  public int deleteExpired(Connection c, ParamValues p) throws SQLException {
    deleteBatch(c, p, "state = 'R'");
    return deleteBatch(c, p, liveStates());
  }

  /**
   * Deletes one batch of rows in {@code states} past retention: by default read, then deleted key
   * by key ({@link Batches#deleteKeyByKey}).
   */
  int deleteBatch(Connection c, ParamValues p, String states) throws SQLException {
    return batches.deleteKeyByKey(c, p, states);
  }
}
