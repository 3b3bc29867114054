package dev.idempotency.store.jdbc.internal;

import static dev.idempotency.store.jdbc.internal.Param.KEY;
import static dev.idempotency.store.jdbc.internal.Param.LEASE;
import static dev.idempotency.store.jdbc.internal.Param.RENEWED_FENCE;
import static dev.idempotency.store.jdbc.internal.Param.RENEWED_KEY;
import static dev.idempotency.store.jdbc.internal.Param.RENEWED_SCOPE;
import static dev.idempotency.store.jdbc.internal.Param.RETENTION;
import static dev.idempotency.store.jdbc.internal.Param.SCOPE;

import dev.idempotency.spi.RecordSnapshot;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statements over many records at once: the renewal of an instance's leases ({@link #renewAll};
 * PostgreSQL's is {@link PostgresRenewal}), the list of abandoned records ({@link #findAbandoned})
 * and a reaper's batch chosen by a read and deleted key by key ({@link #deleteKeyByKey}), for one
 * dialect.
 *
 * <p>Lock order: a claim, and every fenced write, locks a record's primary-key entry first and then
 * changes its {@code (state, retain_from_ns)} index entry. A batch that went the other way (an
 * index range first, each row's primary key second, as a ranged {@code DELETE} does on InnoDB)
 * deadlocks with such a claim on one record: each holds what the other waits for. So the renewal
 * names its rows by primary key (and, where the optimizer might prefer the other index, says so:
 * {@link SqlDialect#byPrimaryKey()}), the abandoned list only reads, and a batch delete reads its
 * keys first and then deletes them one by one by primary key, in the key's order. Thread-safe.
 */
final class Batches {
  /**
   * The most leases one renewal statement names: {@code 3 * 256} parameters stay far below every
   * driver's limit, and a statement that size still takes well under a millisecond of parsing.
   */
  static final int RENEWALS_PER_STATEMENT = 256;

  private final SqlDialect sql;
  private final Map<String, NamedSql> findAbandonedSql = new ConcurrentHashMap<>();
  private final Map<Integer, NamedSql[]> renewalSql = new ConcurrentHashMap<>();
  private final Map<String, NamedSql> expiredKeysSql = new ConcurrentHashMap<>();
  private final Map<String, NamedSql> deleteOneSql = new ConcurrentHashMap<>();

  Batches(SqlDialect sql) {
    this.sql = sql;
  }

  /**
   * Renews every lease in {@code owned} whose fence is still current and whose record is in flight,
   * in one statement per {@link #RENEWALS_PER_STATEMENT} leases, and returns the positions in
   * {@code owned} of those it did not renew. When a statement renews all it names (the normal case)
   * that is its one round trip; otherwise one read of the renewed rows tells which were refused.
   *
   * @param p {@code :now} and {@code :lease}
   */
  Set<Integer> renewAll(Connection c, List<SqlDialect.OwnedLease> owned, ParamValues p)
      throws SQLException {
    Set<Integer> refused = new HashSet<>();
    for (int from = 0; from < owned.size(); from += RENEWALS_PER_STATEMENT) {
      List<SqlDialect.OwnedLease> chunk =
          owned.subList(from, Math.min(owned.size(), from + RENEWALS_PER_STATEMENT));
      // statements come in a few sizes (powers of two), padded with the last lease, so that the
      // renewal adds nine texts at most to the driver's and the database's statement caches, where
      // the claim's must stay
      int size =
          Integer.highestOneBit(chunk.size()) == chunk.size()
              ? chunk.size()
              : Integer.highestOneBit(chunk.size()) << 1;
      NamedSql[] statements = renewalSql.computeIfAbsent(size, this::renewalStatements);
      List<SqlDialect.OwnedLease> padded = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        padded.add(chunk.get(Math.min(i, chunk.size() - 1)));
      }
      p.renewed(padded);
      if (sql.update(statements[0], c, p) == chunk.size()) {
        continue;
      }
      Set<String> renewed = new HashSet<>();
      try (PreparedStatement ps = sql.prepare(statements[1], c, p);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          renewed.add(scopeOf(rs) + "\u0000" + rs.getString(2) + "\u0000" + rs.getLong(3));
        }
      }
      for (int i = 0; i < chunk.size(); i++) {
        SqlDialect.OwnedLease o = chunk.get(i);
        if (!renewed.contains(o.scope() + "\u0000" + o.key() + "\u0000" + o.fence())) {
          refused.add(from + i);
        }
      }
    }
    return refused;
  }

  /**
   * The renewal of {@code n} leases, and the read of those of them that are in flight under the
   * given fences. The primary key's pairs come first: H2 uses only the first column of the key for
   * a three-column row-value list (measured: 256 renewals in a scope of 200,000 rows took 216 to
   * 324 ms against 16 ms with the pairs).
   */
  private NamedSql[] renewalStatements(int n) {
    StringBuilder pairs = new StringBuilder(" WHERE state = 'I' AND (scope, idem_key) IN (");
    StringBuilder triples = new StringBuilder(" AND (scope, idem_key, fence) IN (");
    for (int i = 0; i < n; i++) {
      String sep = i == 0 ? "" : ", ";
      String scopeAndKey = "(" + RENEWED_SCOPE.at(i) + ", " + RENEWED_KEY.at(i);
      pairs.append(sep).append(scopeAndKey).append(')');
      triples.append(sep).append(scopeAndKey).append(", ").append(RENEWED_FENCE.at(i)).append(')');
    }
    String where = pairs.append(')').toString() + triples.append(')');
    String t = sql.names.table() + sql.byPrimaryKey();
    String next = sql.now() + " + " + LEASE;
    // GREATEST: a renewal never moves a lease's end back, for example one that waited for a
    // connection while the owner's checkpoint, with a later now, committed
    return new NamedSql[] {
      NamedSql.parse(
          "UPDATE "
              + t
              + " SET lease_expires_at_ns = GREATEST(lease_expires_at_ns, "
              + next
              + "), retain_from_ns = GREATEST(retain_from_ns, "
              + next
              + "), row_version = row_version + 1"
              + where),
      NamedSql.parse("SELECT scope, idem_key, fence FROM " + t + where)
    };
  }

  /**
   * In-flight records whose lease expired, oldest lease first; a plain read.
   *
   * @param p {@code :now} and {@code :limit}
   */
  List<RecordSnapshot> findAbandoned(Connection c, ParamValues p) throws SQLException {
    // parsed once per limit clause (a constant, except where a dialect writes the limit as a
    // literal)
    NamedSql findAbandoned =
        findAbandonedSql.computeIfAbsent(
            sql.limitClause(p.limit()),
            limit ->
                NamedSql.parse(
                    "SELECT "
                        + Row.COLUMNS
                        + " FROM "
                        + sql.names.table()
                        + " WHERE state = 'I' AND retain_from_ns <= "
                        + sql.now()
                        + " ORDER BY retain_from_ns"
                        + limit));
    List<RecordSnapshot> out = new ArrayList<>();
    try (PreparedStatement ps = sql.prepare(findAbandoned, c, p);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(Row.read(rs, sql.scopeAsBytes()).toSnapshot());
      }
    }
    return out;
  }

  /**
   * Deletes one batch of records in {@code states} past retention and returns how many: their keys
   * are read first (a plain read, which takes no row lock), then each is deleted by its primary
   * key, in the key's order, re-checking that it is still in {@code states} and past retention (a
   * claim may have taken it meanwhile). In auto-commit each delete is a transaction of one row.
   *
   * @param p {@code :now}, {@code :retention} and {@code :limit}
   */
  int deleteKeyByKey(Connection c, ParamValues p, String states) throws SQLException {
    // parsed once per (states, limit clause): the limit is a literal where the dialect writes it so
    String past =
        " AND retain_from_ns <= "
            + sql.now()
            + " - "
            + RETENTION
            + " AND "
            + FencedWrites.notKeptAt(sql.now());
    NamedSql select =
        expiredKeysSql.computeIfAbsent(
            states + sql.limitClause(p.limit()),
            k ->
                NamedSql.parse(
                    "SELECT scope, idem_key FROM "
                        + sql.names.table()
                        + " WHERE "
                        + states
                        + past
                        + sql.batchOrder()
                        + sql.limitClause(p.limit())));
    List<String[]> keys = new ArrayList<>();
    try (PreparedStatement ps = sql.prepare(select, c, p);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        keys.add(new String[] {scopeOf(rs), rs.getString(2)});
      }
    }
    keys.sort(primaryKeyOrder());
    NamedSql deleteOne =
        deleteOneSql.computeIfAbsent(
            states,
            s ->
                NamedSql.parse(
                    "DELETE FROM "
                        + sql.names.table()
                        + " WHERE scope = "
                        + SCOPE
                        + " AND idem_key = "
                        + KEY
                        + " AND "
                        + s
                        + past));
    int deleted = 0;
    try (PreparedStatement ps =
        sql.withTimeout(c.prepareStatement(deleteOne.text()), sql.queryTimeoutSeconds())) {
      for (String[] k : keys) {
        deleteOne.bind(ps, p.recordKey(k[0], k[1]));
        deleted += ps.executeUpdate();
      }
    }
    return deleted;
  }

  /** The scope in the first column of {@code rs}. */
  private String scopeOf(ResultSet rs) throws SQLException {
    return sql.scopeAsBytes()
        ? new String(rs.getBytes(1), StandardCharsets.UTF_8)
        : rs.getString(1);
  }

  /**
   * The primary key's order: scope, then key; where the scope is stored as its UTF-8 bytes (MySQL),
   * the bytes' unsigned order, which is the database's.
   */
  private Comparator<String[]> primaryKeyOrder() {
    Comparator<String[]> byScope =
        sql.scopeAsBytes()
            ? (a, b) ->
                Arrays.compareUnsigned(
                    a[0].getBytes(StandardCharsets.UTF_8), b[0].getBytes(StandardCharsets.UTF_8))
            : Comparator.comparing((String[] k) -> k[0]);
    return byScope.thenComparing(k -> k[1]);
  }
}
