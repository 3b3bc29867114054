package dev.idempotency.store.jdbc.internal;

import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The store's transactions: the one each SPI call runs its statements in ({@link #run}), a phase's,
 * in which the caller's work and the fenced write commit together ({@link #inTransaction}), and a
 * one-transaction request's, in which the claim commits with them too ({@link #claimAndComplete}).
 * Each takes a connection from a {@code DataSource}, gives it back, and runs a transaction that
 * failed with a serialization failure or deadlock (SQLState 40001, 40P01) again after a short
 * random pause, up to the store's {@code maxTransactionAttempts}. Immutable and thread-safe.
 */
public final class Transactions {
  /** The longest pause before a transaction's second attempt (see {@link #pause}). */
  static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** The longest pause before any attempt. */
  static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final SqlDialect sql;
  private final String table;
  private final int maxAttempts;

  /**
   * The transactions of one store.
   *
   * @param sql the dialect, for a phase's clock and statement timeout
   * @param table the records table, for messages
   * @param maxAttempts how often a transaction runs at most, at least 1
   */
  public Transactions(SqlDialect sql, String table, int maxAttempts) {
    this.sql = sql;
    this.table = table;
    this.maxAttempts = maxAttempts;
  }

  /** The statements of one SPI call. */
  @FunctionalInterface
  public interface SqlWork<R> {
    /**
     * Runs them on {@code c}.
     *
     * @param autoCommit whether {@code c} commits each statement; otherwise {@link #run} commits
     *     them together
     */
    R run(Connection c, boolean autoCommit) throws SQLException;
  }

  /**
   * The fenced write that ends a phase: {@link SqlDialect#checkpoint} or {@link
   * SqlDialect#complete}.
   */
  @FunctionalInterface
  public interface FencedWrite {
    /** Writes, or throws {@code LeaseLostException} when the fence no longer holds. */
    void run(Connection c, ParamValues values) throws SQLException;
  }

  /**
   * One SPI call: a connection of its own, in the mode the pool hands it out, committed here unless
   * it commits each statement.
   *
   * @param what what the call does, for messages ("claim of acct-1/k1")
   * @throws dev.idempotency.KeyStoreException what {@link SqlErrors#map} makes of a failure
   */
  public <R> R run(DataSource from, String what, SqlWork<R> work) {
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(from, what);
      try {
        boolean autoCommit = c.getAutoCommit();
        try {
          R result = work.run(c, autoCommit);
          if (!autoCommit) {
            c.commit();
          }
          return result;
        } catch (SQLException | RuntimeException e) {
          if (!autoCommit) {
            rollbackQuietly(c, e);
          }
          throw e;
        }
      } catch (SQLException e) {
        if (SqlErrors.isRetryable(e) && attempt < maxAttempts && pause(attempt)) {
          continue;
        }
        throw SqlErrors.map(what + " on " + table, table, e);
      } finally {
        closeQuietly(c);
      }
    }
  }

  /**
   * Waits before attempt {@code attempt + 1} of a transaction that failed with a serialization
   * failure or deadlock: a random time up to {@link #FIRST_PAUSE_NANOS} doubled per attempt, at
   * most {@link #MAX_PAUSE_NANOS} (full jitter), so that the transactions that just collided
   * (claims of the records a reaper's batch is deleting, say) are not met again at once. Returns
   * false, the interrupt kept, if the thread is interrupted: the caller then reports the failure
   * instead.
   */
  static boolean pause(int attempt) {
    long bound = Math.min(MAX_PAUSE_NANOS, FIRST_PAUSE_NANOS << Math.min(attempt - 1, 16));
    try {
      TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(bound + 1));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * A phase: {@code work} and then the fenced write with {@code valuesFor(result)}, in one
   * transaction on one connection, auto-commit switched off for it and back on afterwards. The
   * connection's isolation level is left as the pool configured it. The work sees the connection
   * through {@link SqlDialect#withStatementTimeout}. A retryable failure of the work or of the
   * write rolls back and runs both again, so the work must touch only this connection; any other
   * failure rolls back and propagates, the work's own exceptions unchanged, and so is an integrity
   * violation at the commit (SQLState class 23: a {@code DEFERRABLE INITIALLY DEFERRED} constraint
   * of the work's tables), which is the work's failure, not the store's.
   *
   * @param label what the phase is, for messages
   */
  public <R> R inTransaction(
      DataSource from,
      String label,
      TransactionalWork<Connection, R> work,
      Function<R, ParamValues> valuesFor,
      FencedWrite write)
      throws Exception {
    return transaction(
        from,
        label,
        false,
        (c, forWork) -> work.run(forWork),
        valuesFor,
        (c, result, values) -> write.run(c, values));
  }

  /**
   * {@link SqlDialect#claim}, the work and the completion in one transaction, for {@code
   * JdbcKeyStore.claimAndComplete}: the claim runs on the connection inside the transaction, so its
   * row stays uncommitted (and locked against every other claim of the record) until the completion
   * commits with the work's writes. An outcome other than a plain {@code Claimed} rolls back before
   * the work runs. A retryable failure of the claim, the work or the completion rolls back and runs
   * all three again.
   *
   * @param claimValues the claim's values ({@code :fp}, {@code :lease}, {@code :window})
   * @param completionValues the completion's values for the claim won and the work's response
   * @param lockWait what a claim that timed out waiting for another transaction's lock answers
   */
  public OneTransactionOutcome claimAndComplete(
      DataSource from,
      String label,
      ParamValues claimValues,
      BiFunction<ClaimOutcome.Claimed, StoredResponse, ParamValues> completionValues,
      ClaimOutcome.InFlight lockWait,
      OneTransactionWork<Connection> work)
      throws Exception {
    try {
      Won won =
          transaction(
              from,
              label,
              true,
              (c, forWork) -> {
                SqlDialect.TransactionClaim claimed0;
                try {
                  claimed0 = sql.claimInTransaction(c, claimValues);
                } catch (SQLException e) {
                  if (SqlErrors.isRetryable(e)) {
                    throw new RetryableClaimFailure(e); // the transaction runs again
                  }
                  throw new ClaimFailed(e);
                }
                ClaimOutcome claim = claimed0.outcome();
                if (!(claim instanceof ClaimOutcome.Claimed claimed)) {
                  throw new NotClaimed(new OneTransactionOutcome.NotRun(claim));
                }
                if (claimed.resumeFrom().isPresent()) {
                  throw new NotClaimed(
                      new OneTransactionOutcome.NeedsResumption(claimed.resumeFrom().get()));
                }
                StoredResponse response =
                    Objects.requireNonNull(
                        work.run(forWork, claimed), "the work returned null instead of a response");
                return new Won(claimed, response, claimed0.insertAtCompletion());
              },
              w ->
                  completionValues
                      .apply(w.claim(), w.response())
                      .fingerprint(claimValues.fingerprint()),
              (c, w, values) -> sql.completeInTransaction(c, values, w.insert()));
      return new OneTransactionOutcome.Committed(won.claim(), won.response());
    } catch (NotClaimed e) {
      return e.outcome;
    } catch (RetryableClaimFailure e) {
      // the claim failed retryably in the last attempt; a work's own SQLException is not this
      throw SqlErrors.map(label + " on " + table, table, e);
    } catch (ClaimFailed e) {
      SQLException cause = e.cause;
      if (SqlErrors.isLockWaitTimeout(cause)) {
        return new OneTransactionOutcome.NotRun(lockWait);
      }
      throw SqlErrors.map(label + " on " + table, table, cause);
    }
  }

  /** The claim a one-transaction run won and the response its work returned. */
  private record Won(ClaimOutcome.Claimed claim, StoredResponse response, boolean insert) {}

  /** The write that ends a transaction, given what its body returned. */
  @FunctionalInterface
  interface Ending<R> {
    void run(Connection c, R result, ParamValues values) throws SQLException;
  }

  /**
   * The claim inside a one-transaction run decided that the work must not run; carries the answer
   * out of the transaction, which rolls back.
   */
  private static final class NotClaimed extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient OneTransactionOutcome outcome;

    NotClaimed(OneTransactionOutcome outcome) {
      super(null, null, false, false);
      this.outcome = outcome;
    }
  }

  /**
   * The claim inside a one-transaction run failed; told apart from an {@code SQLException} of the
   * work, which is rethrown as it was.
   */
  private static final class ClaimFailed extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient SQLException cause;

    ClaimFailed(SQLException cause) {
      super(null, null, false, false);
      this.cause = cause;
    }
  }

  /**
   * A retryable failure (a serialization failure, a deadlock) of the claim inside a one-transaction
   * run: an {@code SQLException} with the same state, so that the transaction runs again, and its
   * own type, so that after the last attempt it is told apart from the work's.
   */
  private static final class RetryableClaimFailure extends SQLException {
    private static final long serialVersionUID = 1L;

    RetryableClaimFailure(SQLException cause) {
      super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
    }
  }

  /** What runs inside a store transaction before its fenced write. */
  @FunctionalInterface
  interface InTransaction<R> {
    /**
     * Runs it.
     *
     * @param c the connection, for the store's own statements
     * @param forWork the same connection as the caller's work sees it (the statement timeout set)
     */
    R run(Connection c, Connection forWork) throws Exception;
  }

  /**
   * One transaction on a connection of its own: {@code body}, then {@code write} with {@code
   * valuesFor(result)}, then the commit, all of it again after a retryable failure (see {@link
   * #inTransaction}); also the optimistic one-transaction request's ({@link OptimisticClaims}).
   *
   * @param boundWaits whether to bound every statement's waits for this transaction ({@link
   *     SqlDialect#boundLockWaits}), for a claim that may wait on another uncommitted claim
   */
  <R> R transaction(
      DataSource from,
      String label,
      boolean boundWaits,
      InTransaction<R> body,
      Function<R, ParamValues> valuesFor,
      Ending<R> write)
      throws Exception {
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(from, label);
      boolean restoreAutoCommit = false;
      boolean unbindWaits = false;
      long unbound = SqlDialect.NOTHING_BOUND;
      try {
        SqlDialect.PinnedClock pinned;
        try {
          if (c.getAutoCommit()) {
            c.setAutoCommit(false);
            restoreAutoCommit = true;
          }
          if (boundWaits) {
            unbound = sql.boundLockWaits(c);
            unbindWaits = true;
          }
          pinned = sql.pinTransactionClock(c);
        } catch (SQLException e) {
          rollbackQuietly(c, e);
          throw SqlErrors.map(label, table, e);
        }
        R result;
        try {
          result = body.run(c, sql.withStatementTimeout(c));
        } catch (Exception e) {
          rollbackQuietly(c, e);
          if (e instanceof SQLException s
              && SqlErrors.isRetryable(s)
              && attempt < maxAttempts
              && pause(attempt)) {
            continue;
          }
          throw e;
        } catch (Error e) {
          // rolled back here, not left to the pool: restoring auto-commit below would commit the
          // work's writes (and a one-transaction run's claim) without the fenced write
          rollbackQuietly(c, e);
          throw e;
        }
        boolean committing = false;
        try {
          ParamValues values = valuesFor.apply(result);
          if (pinned != null) {
            values.phaseClock(pinned);
          }
          write.run(c, result, values);
          committing = true;
          c.commit();
          return result;
        } catch (SQLException e) {
          rollbackQuietly(c, e);
          if (SqlErrors.isRetryable(e) && attempt < maxAttempts && pause(attempt)) {
            continue;
          }
          if (committing && SqlErrors.isIntegrityViolation(e)) {
            // a deferred constraint of the work's writes (the store's table has none): the work's
            // failure, which comes out as the work's own exceptions do
            throw e;
          }
          throw SqlErrors.map(label + " on " + table, table, e);
        } catch (RuntimeException | Error e) {
          rollbackQuietly(c, e);
          throw e;
        }
      } finally {
        if (unbindWaits) {
          try {
            sql.unboundLockWaits(c, unbound);
          } catch (SQLException ignored) {
            // the connection is broken; the pool discards it
          }
        }
        if (restoreAutoCommit) {
          try {
            c.setAutoCommit(true);
          } catch (SQLException ignored) {
            // the connection is broken; closing it below hands it back to the pool, which discards
            // it
          }
        }
        closeQuietly(c);
      }
    }
  }

  private static Connection connect(DataSource from, String what) {
    try {
      return from.getConnection();
    } catch (SQLException e) {
      throw SqlErrors.mapConnect(what, e);
    }
  }

  /** Rolls back; a failure to do so is added to {@code cause}, which is what the caller reports. */
  static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException ignored) {
      // nothing to do: the statement's outcome is already decided
    }
  }
}
