package dev.idempotency.store.jdbc.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The optimistic one-transaction request: no claim before the work. The work runs on a fresh claim
 * whose fence comes from a {@link FenceReserve}, then one statement inserts the complete record and
 * the transaction commits: the round trips of the work, one insert and the commit. The record's
 * primary key arbitrates: if any row of the key exists or appears before this transaction commits,
 * the insert conflicts. A row the request may claim whose fence is older than its own is then
 * written over, complete, in the same transaction ({@link #completeClaimableSql}); any other row
 * rolls the whole transaction back, the work's writes with it, and {@link #run} returns {@code
 * null}: the caller then runs the pessimistic path ({@link Transactions#claimAndComplete}), which
 * decides every such case. Neither statement writes over a record that is not claimable.
 *
 * <p>PostgreSQL: {@code INSERT … ON CONFLICT DO NOTHING}, which waits for an uncommitted row of the
 * key (another optimistic request, or a pessimistic one inserting its record) and inserts nothing
 * once that row commits; at {@code REPEATABLE READ} or {@code SERIALIZABLE} a row committed after
 * the snapshot fails it with a serialization failure, taken as the same conflict. MySQL and
 * MariaDB: a plain {@code INSERT}, whose duplicate-key error (1062) is the conflict. Not on H2, nor
 * on a Galera node, where a conflict with a write on another node surfaces only at commit as a
 * certification failure ({@link #refusal}). Immutable and thread-safe.
 */
public final class OptimisticClaims {
  private final SqlDialect sql;
  private final Transactions transactions;
  private final String table;
  private final NamedSql insertCompleted;
  private final NamedSql completeClaimable;
  private final FenceReserve fences;
  private final boolean mysql;

  private OptimisticClaims(
      SqlDialect sql, Transactions transactions, String table, NamedSql insert, FenceReserve f) {
    this.sql = sql;
    this.transactions = transactions;
    this.table = table;
    this.insertCompleted = insert;
    this.fences = f;
    this.mysql = sql instanceof MySqlDialect;
    this.completeClaimable = NamedSql.parse(completeClaimableSql(table, sql.fencedNow(), mysql));
  }

  /**
   * The complete record written over a row of the key that this request may claim (released, past
   * its window, an in-flight lease of the same request that expired without a recovery point) and
   * whose fence is older than this request's, in the transaction that holds the work's writes: so
   * that the work, which already ran, commits, instead of running again as the claim-first path
   * would make it (which an HTTP application, run once per request, cannot). A takeover keeps the
   * request's generation, as the claim statements do. The assignments that read the old row come
   * first: MySQL assigns left to right, MariaDB with {@code SIMULTANEOUS_ASSIGNMENT} all from the
   * old row, and both then see it.
   */
  private static String completeClaimableSql(String table, String now, boolean mysql) {
    return """
        UPDATE {table} SET claim_kind = CASE WHEN state = 'I' THEN 'T' ELSE 'F' END,
          generation_fence = CASE WHEN state = 'I' THEN COALESCE(generation_fence, fence) END,
          row_version = row_version + 1, state = 'C', fingerprint = :fp, fence = :fence,
          lease_expires_at_ns = NULL, completed_at_ns = {now}, retain_from_ns = {now},
          rp_name = NULL, rp_data = NULL, response_status = :status,
          response_headers = :headers, response_body = :body{nonce}
        WHERE scope = :scope AND idem_key = :key AND fence < :fence AND rp_name IS NULL
          AND (state = 'R' OR (state = 'C' AND completed_at_ns <= {now} - :window)
            OR (state = 'I' AND lease_expires_at_ns <= {now} AND fingerprint = :fp))"""
        .replace("{nonce}", mysql ? ", claim_nonce = :nonce" : "")
        .replace("{table}", table)
        .replace("{now}", now);
  }

  /** The optimistic path of {@code sql}'s store, or {@code null} when the dialect has none (H2). */
  public static @Nullable OptimisticClaims of(
      SqlDialect sql, Names names, Transactions transactions) {
    String t = names.table();
    String now = sql.fencedNow();
    if (sql instanceof PostgresDialect) {
      // the complete record, or nothing when any row of the key exists (its arbiter waits for an
      // uncommitted one)
      NamedSql insert =
          NamedSql.parse(
              """
              INSERT INTO {table} (scope, idem_key, state, fingerprint, fence, completed_at_ns,
                retain_from_ns, claim_kind, row_version, response_status, response_headers,
                response_body)
              VALUES (:scope, :key, 'C', :fp, :fence, {now}, {now}, 'F', 1, :status, :headers, :body)
              ON CONFLICT (scope, idem_key) DO NOTHING"""
                  .replace("{table}", t)
                  .replace("{now}", now));
      return new OptimisticClaims(
          sql, transactions, t, insert, FenceReserve.ofSequence(names.sequence()));
    }
    if (sql instanceof MySqlDialect) {
      NamedSql insert =
          NamedSql.parse(
              """
              INSERT INTO {table} (scope, idem_key, state, fingerprint, fence, completed_at_ns,
                retain_from_ns, claim_kind, claim_nonce, row_version, response_status,
                response_headers, response_body)
              VALUES (:scope, :key, 'C', :fp, :fence, {now}, {now}, 'F', :nonce, 1, :status,
                :headers, :body)"""
                  .replace("{table}", t)
                  .replace("{now}", now));
      return new OptimisticClaims(
          sql, transactions, t, insert, FenceReserve.ofClock(MySqlDialect.CLOCK_MICROS));
    }
    return null;
  }

  /**
   * Why {@code sql}'s store may not run optimistic claims on the database behind {@code c}, or
   * {@code null} when it may.
   */
  public static @Nullable String refusal(SqlDialect sql, Connection c) throws SQLException {
    if (sql instanceof PostgresDialect) {
      return null;
    }
    if (sql instanceof MySqlDialect) {
      return MySqlDialect.galeraNode(c)
          ? "a Galera node (wsrep_on) certifies writes at commit, where a duplicate written on"
              + " another node fails as a deadlock after the insert succeeded here; the"
              + " optimistic path is refused there and the pessimistic one decides"
          : null;
    }
    return "H2 has no optimistic one-transaction path; its one transaction claims first";
  }

  /**
   * One optimistic attempt: the work on a fresh claim, the insert of the complete record, the
   * commit. A serialization failure or deadlock of the work or the commit runs the attempt again,
   * as {@link Transactions} runs every transaction.
   *
   * @param claimValues the request's claim values, for its fingerprint
   * @param completionValues the record's values for the claim and the work's response
   * @param lockWait the answer when the insert waited for another transaction's row of the key
   *     until the statement timeout: that transaction holds the record
   * @return the commit, {@code lockWait} (rolled back), or {@code null} when a row of the key
   *     exists or appeared: nothing of this attempt remains, and the caller decides by the
   *     pessimistic path
   * @throws Exception what the work threw, as it was; a store failure as {@link SqlErrors#map}
   *     makes it
   */
  public @Nullable OneTransactionOutcome run(
      DataSource from,
      String label,
      ParamValues claimValues,
      BiFunction<ClaimOutcome.Claimed, StoredResponse, ParamValues> completionValues,
      ClaimOutcome.InFlight lockWait,
      OneTransactionWork<Connection> work)
      throws Exception {
    try {
      Run won =
          transactions.transaction(
              from,
              label,
              false,
              (c, forWork) -> {
                long fence;
                try {
                  fence = fences.next(c, sql);
                } catch (SQLException e) {
                  throw new FenceFailed(e);
                }
                ClaimOutcome.Claimed claim = ClaimOutcome.Claimed.fresh(FenceToken.of(fence));
                StoredResponse response =
                    Objects.requireNonNull(
                        work.run(forWork, claim), "the work returned null instead of a response");
                return new Run(claim, response);
              },
              r ->
                  completionValues
                      .apply(r.claim(), r.response())
                      .fingerprint(claimValues.fingerprint())
                      .window(claimValues.window()),
              (c, r, values) -> insertOrConflict(c, values));
      return new OneTransactionOutcome.Committed(won.claim(), won.response());
    } catch (Conflict e) {
      return null;
    } catch (LockWaited e) {
      return new OneTransactionOutcome.NotRun(lockWait);
    } catch (FenceFailed e) {
      throw SqlErrors.map(label + " on " + table, table, e.cause);
    }
  }

  /**
   * Inserts the complete record, or writes it over a claimable row of the key ({@link
   * #completeClaimableSql}); throws {@link Conflict} when a row of the key is in the way.
   */
  private void insertOrConflict(Connection c, ParamValues values) throws SQLException {
    if (mysql) {
      values.nonce(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
    }
    try {
      if (write(insertCompleted, c, values) == 1) {
        return;
      }
    } catch (SQLException e) {
      if (!SqlErrors.isDuplicateKey(e)) {
        throw conflictOr(e);
      }
      // MySQL's duplicate key: the statement rolled back, the transaction goes on
    }
    // a row of the key exists: a claimable one takes the record here; otherwise the claim-first
    // path decides from a new transaction
    try {
      if (write(completeClaimable, c, values) == 1) {
        return;
      }
    } catch (SQLException e) {
      throw conflictOr(e);
    }
    throw new Conflict();
  }

  private int write(NamedSql statement, Connection c, ParamValues values) throws SQLException {
    try (PreparedStatement ps = sql.prepare(statement, c, values)) {
      return ps.executeUpdate();
    }
  }

  /**
   * What a failed write of the record comes to: a serialization failure (PostgreSQL: a row
   * committed after this snapshot) or a deadlock with the transaction that holds the key's row is
   * the {@link Conflict} the claim-first path decides from a new transaction; a wait for that row
   * until the statement timeout is in flight ({@link LockWaited}), as a claim that waits as long
   * answers; anything else ({@code e} returned) is the store's failure.
   */
  private static SQLException conflictOr(SQLException e) {
    if (SqlErrors.isRetryable(e)) {
      throw new Conflict();
    }
    if (SqlErrors.isLockWaitTimeout(e)) {
      throw new LockWaited();
    }
    return e;
  }

  /** The fresh claim an attempt ran its work on, and the response. */
  private record Run(ClaimOutcome.Claimed claim, StoredResponse response) {}

  /**
   * A row of the key met the insert: thrown out of the transaction, which rolls back. Unchecked, so
   * that the transaction's write phase rolls back and rethrows it unchanged.
   */
  private static final class Conflict extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Conflict() {
      super(null, null, false, false);
    }
  }

  /** The insert waited for another transaction's row of the key until the statement timeout. */
  private static final class LockWaited extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LockWaited() {
      super(null, null, false, false);
    }
  }

  /** Drawing fences failed: told apart from the work's own {@code SQLException}. */
  private static final class FenceFailed extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient SQLException cause;

    FenceFailed(SQLException cause) {
      super(null, null, false, false);
      this.cause = cause;
    }
  }
}
