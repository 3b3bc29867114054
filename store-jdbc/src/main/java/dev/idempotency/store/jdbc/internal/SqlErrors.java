package dev.idempotency.store.jdbc.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Sorts {@link SQLException}s into the SPI's exceptions. Stateless. */
public final class SqlErrors {
  /** SQLStates that mean "the database is not reachable or did not answer in time". */
  private static final Set<String> UNAVAILABLE_STATES =
      Set.of(
          "57P01", "57P02", "57P03", // PostgreSQL: admin/crash shutdown, cannot connect now
          "53300", // PostgreSQL: too many connections
          "57014", // PostgreSQL: statement timeout / cancelled
          "55P03", // PostgreSQL: lock not available (lock_timeout)
          "HYT00", "HYT01", "70100"); // timeouts (H2 lock timeout, MySQL interrupted)

  /**
   * MySQL/MariaDB error codes with the same meaning: lock wait timeout, too many connections,
   * interrupted.
   */
  private static final Set<Integer> UNAVAILABLE_MYSQL_CODES = Set.of(1205, 1040, 1317, 3024, 1927);

  /** SQLStates of a statement that waited past a timeout (see {@link #isLockWaitTimeout}). */
  private static final Set<String> LOCK_WAIT_STATES = Set.of("57014", "55P03", "HYT00", "70100");

  /** MySQL/MariaDB error codes of the same: lock wait timeout, statement time exceeded. */
  private static final Set<Integer> LOCK_WAIT_MYSQL_CODES = Set.of(1205, 1969, 3024);

  /**
   * SQLStates of a missing table, column or sequence; H2 2 has three for a missing table: none like
   * it (42S02), similar names exist (42S03), the database is empty (42S04).
   */
  private static final Set<String> SCHEMA_STATES =
      Set.of("42P01", "42703", "42S02", "42S03", "42S04", "42S22", "42102", "42122");

  private SqlErrors() {}

  /** Whether the transaction failed only because of a concurrent one and may simply run again. */
  public static boolean isRetryable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        String state = s.getSQLState();
        if ("40001".equals(state)
            || "40P01".equals(state)
            || s.getErrorCode() == 1213
            || s.getErrorCode() == 90131) { // serialization failure, deadlock, H2 concurrent update
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether the database rejected a duplicate key (a same-key insert race the caller resolves by
   * reading again).
   */
  public static boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState()) || e.getErrorCode() == 1062;
  }

  /**
   * Whether the database refused a write because it, or the session, is read-only: a standby
   * (PostgreSQL 25006), a read-only transaction (MySQL/MariaDB 1792), a server started read-only
   * (1290), a read-only H2 database (90097).
   */
  public static boolean isReadOnly(SQLException e) {
    return "25006".equals(e.getSQLState())
        || e.getErrorCode() == 1792
        || e.getErrorCode() == 1290
        || e.getErrorCode() == 90097;
  }

  /** Whether the exception says the database cannot be reached or did not answer in time. */
  public static boolean isUnavailable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException
          || t instanceof SQLNonTransientConnectionException
          || t instanceof SQLTimeoutException
          || t instanceof SQLRecoverableException) {
        return true;
      }
      if (t instanceof SQLException s) {
        String state = s.getSQLState();
        if (state != null && (state.startsWith("08") || UNAVAILABLE_STATES.contains(state))) {
          return true;
        }
        if (UNAVAILABLE_MYSQL_CODES.contains(s.getErrorCode())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether a statement ended because it waited too long, on a lock or for the database: the
   * store's statement timeout (PostgreSQL 57014, MySQL and MariaDB 70100 or error 1969 or 3024, a
   * driver's {@link SQLTimeoutException}), PostgreSQL's {@code lock_timeout} (55P03), H2's lock
   * timeout (HYT00) or InnoDB's {@code innodb_lock_wait_timeout} (error 1205). A connection that
   * failed (SQLState class 08) is not a timeout of the statement.
   */
  public static boolean isLockWaitTimeout(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        String state = s.getSQLState();
        if (state != null && state.startsWith("08")) {
          return false;
        }
        if (t instanceof SQLTimeoutException
            || LOCK_WAIT_STATES.contains(state)
            || LOCK_WAIT_MYSQL_CODES.contains(s.getErrorCode())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether a claim statement ended because it waited too long for another transaction's lock, so
   * that the record is held (in flight), not the database down: a lock timeout (PostgreSQL's {@code
   * lock_timeout}, 55P03; H2's, HYT00; InnoDB's {@code innodb_lock_wait_timeout}, error 1205), or
   * the store's statement timeout (PostgreSQL 57014) cancelling a statement that was waiting for
   * another transaction, which the server says in the error's context ("while updating tuple (0,2)
   * in relation …"; read through the PostgreSQL driver's {@code
   * getServerErrorMessage().getWhere()}: a statement cancelled for any other reason, a slow or
   * stopped database, has none). A connection that failed (class 08) is not one.
   */
  public static boolean isClaimLockWait(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        String state = s.getSQLState();
        if (state != null && state.startsWith("08")) {
          return false;
        }
        if ("55P03".equals(state) || "HYT00".equals(state) || s.getErrorCode() == 1205) {
          return true;
        }
        if ("57014".equals(state) && serverErrorContext(s) != null) {
          return true;
        }
      }
    }
    return false;
  }

  /** The context PostgreSQL's driver reports with a server error ({@code Where:}), if any. */
  private static @Nullable Object serverErrorContext(SQLException e) {
    try {
      Object server = e.getClass().getMethod("getServerErrorMessage").invoke(e);
      return server == null ? null : server.getClass().getMethod("getWhere").invoke(server);
    } catch (ReflectiveOperationException | RuntimeException notPgJdbc) {
      return null;
    }
  }

  /**
   * Whether the database refused a write for an integrity constraint (SQLState class 23): at a
   * commit, a deferred constraint of the application's tables.
   */
  public static boolean isIntegrityViolation(SQLException e) {
    String state = e.getSQLState();
    return state != null && state.startsWith("23");
  }

  /** Whether the exception says a table, column or sequence of the schema is missing. */
  public static boolean isSchemaProblem(SQLException e) {
    return e.getSQLState() != null && SCHEMA_STATES.contains(e.getSQLState());
  }

  /**
   * Maps an exception of the store's own SQL.
   *
   * @param what what the store was doing, for example "claim of acct-1/k1"
   * @param table the records table, for the how-to-fix message
   */
  public static KeyStoreException map(String what, String table, SQLException e) {
    // a serialization failure or deadlock that outlasted the store's transaction attempts is
    // contention, not a fault: a later retry of the request may pass
    if (isUnavailable(e) || isRetryable(e)) {
      return new StoreUnavailableException(
          "JDBC key store unavailable during "
              + what
              + ": "
              + e.getMessage()
              + " (SQLState "
              + e.getSQLState()
              + ")",
          e);
    }
    if (isSchemaProblem(e)) {
      return new KeyStoreException(schemaMessage(table, e), e);
    }
    if (isReadOnly(e)) {
      return new KeyStoreException(
          "JDBC key store cannot write during "
              + what
              + ": the database refuses writes ("
              + e.getMessage()
              + ", SQLState "
              + e.getSQLState()
              + "). A standby of a replicated database, or a session with"
              + " default_transaction_read_only or read_only set, refuses every write: point the"
              + " store at the primary (PostgreSQL: a multi-host URL with"
              + " targetServerType=primary). Nothing was written",
          e);
    }
    return new KeyStoreException(
        "JDBC key store failed during "
            + what
            + ": "
            + e.getMessage()
            + " (SQLState "
            + e.getSQLState()
            + ", error "
            + e.getErrorCode()
            + ")",
        e);
  }

  /** Maps a failure of {@code DataSource.getConnection()}: the database cannot be reached. */
  public static KeyStoreException mapConnect(String what, SQLException e) {
    String state = e.getSQLState();
    if (state != null && state.startsWith("28")) {
      return new KeyStoreException(
          "JDBC key store cannot log in to the database during "
              + what
              + ": "
              + e.getMessage()
              + ". Check the DataSource's user and password.",
          e);
    }
    return new StoreUnavailableException(
        "JDBC key store cannot get a connection during "
            + what
            + ": "
            + e.getMessage()
            + " (SQLState "
            + state
            + ")",
        e);
  }

  /** The message for a missing or incomplete schema: what is wrong and how to fix it. */
  public static String schemaMessage(String table, SQLException e) {
    return "The idempotency table \""
        + table
        + "\" (or its fence sequence) is missing or lacks columns: "
        + e.getMessage()
        + " (SQLState "
        + e.getSQLState()
        + "). Create it with the DDL shipped in "
        + "dev/idempotency/store/jdbc/schema/<dialect>/V1__idempotency_records.sql (hand it to Flyway or "
        + "Liquibase; JdbcKeyStore.schemaDdl(dialect, table) renders it for another table name), or, for "
        + "development, build the store with JdbcKeyStore.builder(dataSource).createSchemaIfMissing().";
  }
}
