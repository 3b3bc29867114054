package dev.idempotency.store.jdbc.internal;

import static dev.idempotency.store.jdbc.internal.Param.NOW;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSnapshot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * MySQL 8 and MariaDB 10.11: after the plain read that opens every claim ({@link SqlDialect#claim})
 * found no record or a claimable one, {@code INSERT … ON DUPLICATE KEY UPDATE} with conditional
 * assignments. A replay, a mismatch or a live lease is answered by that read alone, a plain
 * (non-locking) {@code SELECT} that writes nothing; the statement below decides on the newest row,
 * under its lock, whatever the read saw.
 *
 * <p>MySQL evaluates the assignments left to right and each one sees the columns already assigned,
 * so the first assignment decides on the old row and marks the decision with this statement's
 * random {@code claim_nonce} ({@code +nonce}: claimed here, {@code -nonce}: not); every later
 * assignment asks whether the nonce is ours, and {@code state}, which the decision reads, is
 * assigned last. MariaDB's {@code SIMULTANEOUS_ASSIGNMENT} mode (also part of {@code
 * sql_mode=ORACLE}) shows every assignment the old row instead, where the nonce is still an earlier
 * claim's: then each assignment judges the claimability itself on that old row, by the same cases
 * as the decision. The statement is therefore right in both modes, whatever a pool sets per
 * connection. The marker always changes, so the update count is 1 for an insert and 2 for an update
 * whether the driver reports found or affected rows.
 *
 * <p>On MariaDB 10.5 and later the claim ends in {@code RETURNING}: the row as the statement left
 * it, with its nonce, tells whether this statement claimed it and otherwise answers the replay,
 * mismatch or in-flight claim from the same round trip. There the nonce is assigned only by a
 * claim, so a claim that does not win changes nothing in the row and writes nothing.
 *
 * <p>Not on a Galera node ({@code wsrep_on}), though: there a statement that commits on its own
 * sends its {@code RETURNING} row before the commit, and the commit can still fail certification
 * against a claim of the same key committed on another node; the client has then read a row that
 * says "claimed" for a claim that was rolled back, and two callers run the work. MySQL's statement
 * answers in the OK packet, which follows the commit, so a certification failure reaches the store
 * as a deadlock error (1213), or the node runs the statement again, and the answer is the committed
 * one. On a three-node cluster with the claims of each of 200 keys sent to every node at once, the
 * {@code RETURNING} claim ran the work of 15, 28 and 16 keys twice or three times in three runs;
 * MySQL's statement ran none twice ({@code GaleraClusterIT}).
 *
 * <p>MySQL has no {@code RETURNING}, so there the decision comes back in the OK packet's insert id,
 * through {@code LAST_INSERT_ID(expr)}: {@code payload * 8 + kind}, kind 1 claimed fresh, 2 taken
 * over, 3 taken over with a recovery point, 4 in flight (payload: nanoseconds of lease left), 5
 * mismatch (payload 0 in flight, 1 complete), 6 completed (the response is read in a second
 * statement).
 *
 * <p>MySQL 8 has no sequences; the fence is {@code GREATEST(previous fence + 1, database clock in
 * microseconds)}. While the row exists that is strictly increasing; after a purge the next fence is
 * the database clock, larger than every purged fence unless the database clock stepped back by more
 * than the retention.
 */
final class MySqlDialect extends SqlDialect {
  static final String CLOCK_MICROS =
      "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";

  /** MySQL and MariaDB's error for {@code @@name} of a variable the server does not have. */
  private static final int UNKNOWN_SYSTEM_VARIABLE = 1193;

  private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)");

  private final NamedSql claim;
  private final NamedSql claimReturning;
  private final NamedSql insertReturning;

  /** Whether the server runs {@link #claimReturning}: learned from the first claim's connection. */
  private volatile @Nullable Boolean returning;

  /**
   * @param returning whether to claim with {@code RETURNING}; {@code null}: as the server allows,
   *     learned from the first claim's connection
   */
  MySqlDialect(
      Names names, boolean serverClock, int queryTimeoutSeconds, @Nullable Boolean returning) {
    super(names, serverClock, queryTimeoutSeconds);
    this.returning = returning;
    String t = names.table();
    String n = now();
    // Whether this call claims the row, in either order of assignment: left to right (MySQL's
    // default) the first assignment has already set the nonce to +nonce or -nonce, which answers;
    // with SIMULTANEOUS_ASSIGNMENT in sql_mode (MariaDB, also part of sql_mode=ORACLE) every
    // assignment sees the old row, whose nonce is an earlier claim's, so the claimability is judged
    // again on that old row (the same cases the decision below claims).
    String claimable =
        """
        (state = 'R' OR (state = 'C' AND completed_at_ns <= {now} - :window)
          OR (state = 'I' AND fingerprint = VALUES(fingerprint) AND lease_expires_at_ns <= {now}))"""
            .replace("{now}", n);
    claim =
        NamedSql.parse(
            upsert(
                t,
                n,
                "LAST_INSERT_ID(" + CLOCK_MICROS + " * 8 + 1) DIV 8",
                """
                claim_nonce = IF(LAST_INSERT_ID(CASE
                    WHEN state = 'R' OR (state = 'C' AND completed_at_ns <= {now} - :window)
                      THEN GREATEST(fence + 1, VALUES(fence)) * 8 + 1
                    WHEN fingerprint <> VALUES(fingerprint) THEN IF(state = 'C', 13, 5)
                    WHEN state = 'I' AND lease_expires_at_ns <= {now}
                      THEN GREATEST(fence + 1, VALUES(fence)) * 8 + IF(rp_name IS NULL, 2, 3)
                    WHEN state = 'I' THEN (lease_expires_at_ns - {now}) * 8 + 4
                    ELSE 6 END) MOD 8 IN (1, 2, 3), VALUES(claim_nonce), -VALUES(claim_nonce))"""
                    .replace("{now}", n),
                "(claim_nonce = VALUES(claim_nonce) OR (claim_nonce <> -VALUES(claim_nonce) AND "
                    + claimable
                    + "))"));
    // MariaDB 10.5+: the same arbitration, answered by RETURNING with the row as the statement
    // left it. A claim that does not win assigns every column its own value, so a replay, a
    // mismatch or an in-flight answer writes nothing (no redo, no change to commit), and the
    // decision and the response come back in the one round trip. The nonce marks the row only
    // when this statement claims it: later assignments see it (left to right), or judge the old
    // row by the same cases (SIMULTANEOUS_ASSIGNMENT), whose nonce cannot be this statement's.
    claimReturning =
        NamedSql.parse(
            upsert(
                    t,
                    n,
                    CLOCK_MICROS,
                    "claim_nonce = IF(" + claimable + ", VALUES(claim_nonce), claim_nonce)",
                    "(claim_nonce = VALUES(claim_nonce) OR " + claimable + ")")
                + " RETURNING %s, claim_nonce, claim_kind, %s AS db_now".formatted(Row.COLUMNS, n));
    insertReturning = NamedSql.parse(insertReturning(t, n));
  }

  /**
   * MariaDB, a key the claim's read found no record of: the insert alone, which InnoDB runs without
   * looking for a row to update and MariaDB parses without the dozen conditional assignments. A row
   * inserted meanwhile fails it with a duplicate key, and the claim then runs {@link
   * #claimReturning}.
   */
  private static String insertReturning(String t, String n) {
    return """
        INSERT INTO {table} (scope, idem_key, state, fingerprint, fence, lease_expires_at_ns,
          completed_at_ns, retain_from_ns, claim_kind, claim_nonce, row_version)
        VALUES (:scope, :key, 'I', :fp, {clock}, {now} + :lease, NULL, {now} + :lease, 'F', :nonce, 1)
        RETURNING fence"""
        .replace("{clock}", CLOCK_MICROS)
        .replace("{table}", t)
        .replace("{now}", n);
  }

  /**
   * The claim's {@code INSERT … ON DUPLICATE KEY UPDATE}: a fresh row with {@code insertFence}, or
   * on the existing row {@code decision} (the first assignment, {@code claim_nonce}'s) and then
   * every column's assignment under {@code ours} (whether this statement claims the row).
   */
  private static String upsert(
      String t, String n, String insertFence, String decision, String ours) {
    // generation_fence is assigned before fence and state change: a takeover keeps the request's
    // generation, a fresh claim begins its own
    return """
        INSERT INTO {table} (scope, idem_key, state, fingerprint, fence, lease_expires_at_ns,
          completed_at_ns, retain_from_ns, claim_kind, claim_nonce, row_version)
        VALUES (:scope, :key, 'I', :fp, {insertFence}, {now} + :lease, NULL, {now} + :lease, 'F',
          :nonce, 1)
        ON DUPLICATE KEY UPDATE {decision},
          claim_kind = IF({ours}, IF(state = 'I', 'T', 'F'), claim_kind),
          rp_name = IF({ours} AND state <> 'I', NULL, rp_name),
          rp_data = IF({ours} AND state <> 'I', NULL, rp_data),
          generation_fence = IF({ours}, IF(state = 'I', COALESCE(generation_fence, fence), NULL),
            generation_fence),
          fence = IF({ours}, GREATEST(fence + 1, VALUES(fence)), fence),
          fingerprint = IF({ours}, VALUES(fingerprint), fingerprint),
          lease_expires_at_ns = IF({ours}, VALUES(lease_expires_at_ns), lease_expires_at_ns),
          retain_from_ns = IF({ours}, VALUES(retain_from_ns), retain_from_ns),
          completed_at_ns = IF({ours}, NULL, completed_at_ns),
          response_status = IF({ours}, NULL, response_status),
          response_headers = IF({ours}, NULL, response_headers),
          response_body = IF({ours}, NULL, response_body),
          row_version = IF({ours}, row_version + 1, row_version),
          state = IF({ours}, 'I', state)"""
        .replace("{insertFence}", insertFence)
        .replace("{decision}", decision)
        .replace("{ours}", ours)
        .replace("{table}", t)
        .replace("{now}", n);
  }

  @Override
  String clockExpression() {
    return CLOCK_MICROS + " * 1000";
  }

  @Override
  String engineNow() {
    return "CAST(" + NOW + " AS SIGNED)";
  }

  @Override
  boolean scopeAsBytes() {
    return true;
  }

  /**
   * InnoDB's optimizer may read a renewal's rows through the {@code (state, retain_from_ns)} index
   * ({@code state = 'I'} is selective where few records are in flight), which locks that index's
   * entries before the rows' primary keys, the reverse of a claim's order, and at {@code REPEATABLE
   * READ} every in-flight record the range passes. Seen on MariaDB 10.11 with a few hundred rows.
   */
  @Override
  String byPrimaryKey() {
    return " FORCE INDEX (PRIMARY)";
  }

  @Override
  public List<String> validationStatements() {
    return List.of(
        ("SELECT %s, retain_from_ns, keep_until_ns, claim_kind, claim_nonce, row_version"
                + " FROM %s WHERE 1 = 0")
            .formatted(Row.COLUMNS, names.table()));
  }

  /**
   * At {@code READ COMMITTED}, and back to the connection's level afterwards: under {@code
   * REPEATABLE READ} (InnoDB's default) a delete of a key that is gone meanwhile, or a read the
   * level makes locking, would take gap locks that block concurrent claims; the batch needs no
   * more.
   */
  @Override
  public int deleteExpired(Connection c, ParamValues p) throws SQLException {
    return atReadCommitted(c, false, () -> super.deleteExpired(c, p));
  }

  /**
   * A plain read, except at {@code SERIALIZABLE} with auto-commit off, where InnoDB makes it a
   * locking one that takes the index's entries before the rows' primary keys, the reverse of a
   * claim's order: there it runs at {@code READ COMMITTED}.
   */
  @Override
  public List<RecordSnapshot> findAbandoned(Connection c, ParamValues p) throws SQLException {
    return atReadCommitted(c, true, () -> super.findAbandoned(c, p));
  }

  /** A plain read, as {@link #findAbandoned} is, for the same reason. */
  @Override
  public RecordPage list(Connection c, RecordQuery query, ParamValues p) throws SQLException {
    return atReadCommitted(c, true, () -> super.list(c, query, p));
  }

  /** SQL run on a connection, for {@link #atReadCommitted}. */
  @FunctionalInterface
  private interface OnConnection<R> {
    R run() throws SQLException;
  }

  /**
   * Runs {@code work} at {@code READ COMMITTED} and puts the connection's level back; {@code
   * onlyFromSerializable}: only when the connection is at {@code SERIALIZABLE}.
   */
  private static <R> R atReadCommitted(
      Connection c, boolean onlyFromSerializable, OnConnection<R> work) throws SQLException {
    int previous = c.getTransactionIsolation();
    if (previous == Connection.TRANSACTION_READ_COMMITTED
        || (onlyFromSerializable && previous != Connection.TRANSACTION_SERIALIZABLE)) {
      return work.run();
    }
    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    try {
      return work.run();
    } finally {
      c.setTransactionIsolation(previous);
    }
  }

  /**
   * The claim statement; {@code lostBefore} changes nothing here, because the statement decides
   * under the row lock it takes, on the newest row. Each statement draws a nonce of its own, so
   * that a later attempt of the same claim cannot find its own earlier refusal ({@code -nonce}) on
   * the row, which under {@code SIMULTANEOUS_ASSIGNMENT} would make every assignment keep the old
   * row while the decision reported the row claimed.
   */
  @Override
  @Nullable ClaimOutcome claimOnce(Connection c, ParamValues p, boolean lostBefore)
      throws SQLException {
    long nonce = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    p.nonce(nonce);
    return returnsRows(c) ? claimReturning(c, p, nonce) : claimByInsertId(c, p);
  }

  /**
   * On MariaDB the plain {@link #insertReturning}; on MySQL the claim statement, whose insert id
   * carries the decision.
   */
  @Override
  @Nullable ClaimOutcome claimAbsent(Connection c, ParamValues p) throws SQLException {
    if (!returnsRows(c)) {
      return claimOnce(c, p, false);
    }
    p.nonce(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
    // execute, not executeQuery: MySQL Connector/J refuses an INSERT in executeQuery
    try (PreparedStatement ps = prepare(insertReturning, c, p)) {
      if (!ps.execute()) {
        throw new KeyStoreException(
            "the MariaDB claim insert on " + names.table() + " returned no row");
      }
      try (ResultSet rs = ps.getResultSet()) {
        if (!rs.next()) {
          throw new KeyStoreException(
              "the MariaDB claim insert on " + names.table() + " returned no row");
        }
        return ClaimOutcome.Claimed.fresh(FenceToken.of(rs.getLong(1)));
      }
    }
  }

  /**
   * Whether the server runs {@code INSERT … RETURNING}: learned once, from a claim's connection.
   */
  private boolean returnsRows(Connection c) throws SQLException {
    Boolean mariaDb = returning;
    if (mariaDb == null) {
      mariaDb = returnsRows(c.getMetaData().getDatabaseProductVersion()) && !galeraNode(c);
      returning = mariaDb;
    }
    return mariaDb;
  }

  /**
   * Whether a server of this version string runs {@code INSERT … RETURNING}: MariaDB from 10.5
   * ({@code "10.11.19-MariaDB-0+deb12u1"}); MySQL has none. Both drivers report the version the
   * server announced, so this reads no table.
   */
  static boolean returnsRows(@Nullable String version) {
    if (version == null || !version.contains("MariaDB")) {
      return false;
    }
    // MariaDB 10 servers prefix the version they announce with "5.5.5-" for old MySQL clients
    Matcher m = MAJOR_MINOR.matcher(version.startsWith("5.5.5-") ? version.substring(6) : version);
    if (!m.find()) {
      return false;
    }
    int major = Integer.parseInt(m.group(1));
    int minor = Integer.parseInt(m.group(2));
    return major > 10 || (major == 10 && minor >= 5);
  }

  /**
   * Whether {@code c} is a session on a Galera node, which replicates its writes and certifies them
   * at commit ({@code @@global.wsrep_on}, which every MariaDB server has, off unless a Galera
   * provider is loaded).
   */
  static boolean galeraNode(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@global.wsrep_on")) {
      return rs.next() && rs.getBoolean(1);
    } catch (SQLException e) {
      if (e.getErrorCode() == UNKNOWN_SYSTEM_VARIABLE) {
        return false; // a server built without wsrep
      }
      throw e;
    }
  }

  /**
   * The claim on MariaDB: one statement, whose returned row says whether it claimed (the nonce is
   * this statement's), and otherwise what the row means; {@code null} only if the row returned is
   * claimable and was not claimed, which the statement's own decision rules out.
   */
  private @Nullable ClaimOutcome claimReturning(Connection c, ParamValues p, long nonce)
      throws SQLException {
    // execute, not executeQuery: MySQL Connector/J refuses an INSERT in executeQuery
    try (PreparedStatement ps = prepare(claimReturning, c, p)) {
      if (!ps.execute()) {
        throw new KeyStoreException(
            "the MariaDB claim statement on " + names.table() + " returned no row");
      }
      try (ResultSet rs = ps.getResultSet()) {
        if (!rs.next()) {
          throw new KeyStoreException(
              "the MariaDB claim statement on " + names.table() + " returned no row");
        }
        Row row = Row.read(rs, scopeAsBytes());
        if (rs.getLong("claim_nonce") == nonce) {
          return row.claimedOutcome("T".equals(rs.getString("claim_kind")));
        }
        return row.outcomeOfClaim(rs.getLong("db_now"), p.fingerprint(), p.window());
      }
    }
  }

  /** The claim on MySQL: the decision in the insert id, as the class comment describes. */
  private @Nullable ClaimOutcome claimByInsertId(Connection c, ParamValues p) throws SQLException {
    int count;
    long code;
    try (PreparedStatement ps = prepareWithKeys(claim, c, p)) {
      count = ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        code = keys.next() ? keys.getLong(1) : 0;
      }
    }
    long payload = code >>> 3;
    int kind = (int) (code & 7);
    if (count == 1 && kind == 1) {
      return ClaimOutcome.Claimed.fresh(FenceToken.of(payload));
    }
    if (count != 2) {
      throw new KeyStoreException(
          "unexpected update count "
              + count
              + " (insert id "
              + code
              + ") from the MySQL "
              + "claim statement on "
              + names.table()
              + "; is the table's primary key (scope, idem_key)?");
    }
    return switch (kind) {
      case 1 -> ClaimOutcome.Claimed.fresh(FenceToken.of(payload));
      case 2, 3 -> tookOver(c, p, FenceToken.of(payload));
      case 4 -> new ClaimOutcome.InFlight(Duration.ofNanos(payload));
      case 5 -> new ClaimOutcome.Mismatch(payload == 0 ? KeyState.IN_FLIGHT : KeyState.COMPLETE);
      case 6 -> null; // completed: the caller reads the stored response
      default ->
          throw new KeyStoreException(
              "the MySQL claim statement on "
                  + names.table()
                  + " returned no"
                  + " decision (insert id "
                  + code
                  + "); the driver must report LAST_INSERT_ID() through getGeneratedKeys()");
    };
  }

  /**
   * A takeover (rare) reads the row it took for the request's generation and recovery point: one
   * more round trip. The statement has committed, so the row may already have moved on to a later
   * owner (one whose clock runs a lease ahead of this one's); this claim has then lost the record,
   * and it learns so at its first fenced write. It still returns its claim, without a recovery
   * point: with the row's generation when that is older than this claim's fence (a later takeover
   * of the same request kept it), else with a generation of its own.
   */
  private ClaimOutcome tookOver(Connection c, ParamValues p, FenceToken fence) throws SQLException {
    Optional<Row> row = read(c, p);
    if (row.isPresent() && row.get().fence() == fence.value()) {
      return row.get().claimedOutcome(true);
    }
    FenceToken generation =
        row.map(r -> FenceToken.of(r.generation())).filter(g -> fence.isNewerThan(g)).orElse(fence);
    return new ClaimOutcome.Claimed(fence, Optional.empty(), true, generation);
  }
}
