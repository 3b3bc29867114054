package dev.idempotency.store.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Cancels one statement that runs past a deadline, from a timer thread: the bound of H2's claim. H2
 * checks a primary key against another transaction's uncommitted entry in a loop that ignores its
 * {@code LOCK_TIMEOUT}, and its query timeout is a setting of the session (a statement's {@code
 * setQueryTimeout} runs a {@code SET QUERY_TIMEOUT} command and leaves it on the pooled session). A
 * cancel from another thread ends that loop and leaves the session as it was. Thread-safe.
 */
final class StatementDeadline {
  /** One daemon thread for every store of the JVM; a task costs a queue insertion and removal. */
  private static final class Timer {
    static final ScheduledThreadPoolExecutor INSTANCE = create();

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor timer =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "idempotency-jdbc-statement-deadline");
                t.setDaemon(true);
                return t;
              });
      timer.setRemoveOnCancelPolicy(true);
      return timer;
    }
  }

  private final Statement statement;
  private final ScheduledFuture<?> task;
  private boolean ended; // guarded by this
  private boolean cancelled; // guarded by this

  private StatementDeadline(Statement statement, long millis) {
    this.statement = statement;
    this.task = Timer.INSTANCE.schedule(this::cancel, millis, TimeUnit.MILLISECONDS);
  }

  /** Cancels {@code statement} if it still runs {@code millis} from now, unless {@link #end}ed. */
  static StatementDeadline start(Statement statement, long millis) {
    return new StatementDeadline(statement, millis);
  }

  private synchronized void cancel() {
    if (!ended) {
      cancelled = true;
      try {
        statement.cancel();
      } catch (SQLException ignored) {
        // the statement ended meanwhile, or its connection broke: nothing left to bound
      }
    }
  }

  /**
   * Ends the deadline, once the statement returned or threw; after it nothing is cancelled.
   *
   * @return whether the deadline had cancelled the statement (a cancel that came after the
   *     statement returned may still be pending on the session: see {@link #absorbCancel})
   */
  synchronized boolean end() {
    ended = true;
    task.cancel(false);
    return cancelled;
  }

  /**
   * Takes a cancel that reached the session after its statement had returned, so that it does not
   * end the next statement on the connection (the pool's next user's, say): one statement that the
   * cancel ends, or that runs if there is none.
   */
  static void absorbCancel(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    } catch (SQLException e) {
      if (!"57014".equals(e.getSQLState())) {
        throw e;
      }
    }
  }
}
