package dev.idempotency.store.jdbc.internal;

import dev.idempotency.spi.TransactionalWork;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The store's transactions: the one each SPI call runs its statements in ({@link #run}), and a
 * phase's, in which the caller's work and the fenced write commit together ({@link
 * #inTransaction}). Each takes a connection from a {@code DataSource}, gives it back, and runs a
 * transaction that failed with a serialization failure or deadlock (SQLState 40001, 40P01) again,
 * up to the store's {@code maxTransactionAttempts}. Immutable and thread-safe.
 */
public final class Transactions {
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
   * @throws dev.idempotency.spi.KeyStoreException what {@link SqlErrors#map} makes of a failure
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
        if (SqlErrors.isRetryable(e) && attempt < maxAttempts) {
          continue;
        }
        throw SqlErrors.map(what + " on " + table, table, e);
      } finally {
        closeQuietly(c);
      }
    }
  }

  /**
   * A phase: {@code work} and then the fenced write with {@code valuesFor(result)}, in one
   * transaction on one connection, auto-commit switched off for it and back on afterwards. The
   * connection's isolation level is left as the pool configured it. The work sees the connection
   * through {@link SqlDialect#withStatementTimeout}. A retryable failure of the work or of the
   * write rolls back and runs both again, so the work must touch only this connection; any other
   * failure rolls back and propagates, the work's own exceptions unchanged.
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
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(from, label);
      boolean restoreAutoCommit = false;
      try {
        SqlDialect.PinnedClock pinned;
        try {
          if (c.getAutoCommit()) {
            c.setAutoCommit(false);
            restoreAutoCommit = true;
          }
          pinned = sql.pinTransactionClock(c);
        } catch (SQLException e) {
          rollbackQuietly(c, e);
          throw SqlErrors.map(label, table, e);
        }
        R result;
        try {
          result = work.run(sql.withStatementTimeout(c));
        } catch (Exception e) {
          rollbackQuietly(c, e);
          if (e instanceof SQLException s && SqlErrors.isRetryable(s) && attempt < maxAttempts) {
            continue;
          }
          throw e;
        }
        try {
          ParamValues values = valuesFor.apply(result);
          if (pinned != null) {
            values.phaseClock(pinned);
          }
          write.run(c, values);
          c.commit();
          return result;
        } catch (SQLException e) {
          rollbackQuietly(c, e);
          if (SqlErrors.isRetryable(e) && attempt < maxAttempts) {
            continue;
          }
          throw SqlErrors.map(label + " on " + table, table, e);
        } catch (RuntimeException e) {
          rollbackQuietly(c, e);
          throw e;
        }
      } finally {
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
