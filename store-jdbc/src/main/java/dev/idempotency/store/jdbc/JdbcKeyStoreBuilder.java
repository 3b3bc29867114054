package dev.idempotency.store.jdbc;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.store.jdbc.internal.Names;
import dev.idempotency.store.jdbc.internal.OptimisticClaims;
import dev.idempotency.store.jdbc.internal.ResponseLimit;
import dev.idempotency.store.jdbc.internal.Schema;
import dev.idempotency.store.jdbc.internal.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Configures a {@link JdbcKeyStore}: {@link JdbcKeyStore#builder(DataSource)} starts one with every
 * setting at its default. Not thread-safe; {@link #build()} yields an immutable store.
 *
 * <p>A class of its own rather than nested in {@link JdbcKeyStore}, so that the store's source is
 * its SPI methods; code that chains {@code JdbcKeyStore.builder(dataSource)...build()} never names
 * it.
 */
public final class JdbcKeyStoreBuilder {
  // read by the JdbcKeyStore constructor
  final DataSource dataSource;
  @Nullable DataSource renewalDataSource; // null: renewals share dataSource
  Names names = Names.of(Names.DEFAULT_TABLE);
  ClockSource clockSource = ClockSource.DATABASE;
  boolean mysqlStatement;
  int maxTransactionAttempts = 3;
  Duration statementTimeout = JdbcKeyStore.DEFAULT_STATEMENT_TIMEOUT;
  private @Nullable Dialect dialect; // null: build() detects it
  private boolean createSchema;
  private boolean validateSchema = true;
  private long maxResponseBytes; // 0: what the database keeps
  boolean optimisticOneTransaction;

  JdbcKeyStoreBuilder(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * The records table, optionally schema-qualified; default {@code idempotency_records}. Its fence
   * sequence is {@code <table>_fence_seq}.
   *
   * @throws IllegalArgumentException if it is not {@code [schema.]name} of letters, digits and
   *     underscores
   */
  public JdbcKeyStoreBuilder tableName(String tableName) {
    this.names = Names.of(Objects.requireNonNull(tableName, "tableName"));
    return this;
  }

  /**
   * A pool of its own for lease renewals ({@link JdbcKeyStore#heartbeatAll}, {@link
   * JdbcKeyStore#heartbeat}); default: the application's {@code DataSource}. The engine renews all
   * of an instance's leases in one statement per heartbeat interval, so one connection is enough.
   * Give renewals their own pool when the application's can run dry under load: renewals waiting
   * for a connection (HikariCP waits up to its {@code connectionTimeout}, 30 s by default) leave
   * every lease of the instance unconfirmed, and the engine then tells each owner through {@code
   * Execution.leaseLost()} to stop before its lease lapses. Keep that pool's connection timeout
   * well below the engine's {@code leaseSafetyMargin()}.
   */
  public JdbcKeyStoreBuilder renewalDataSource(DataSource renewalDataSource) {
    this.renewalDataSource = Objects.requireNonNull(renewalDataSource, "renewalDataSource");
    return this;
  }

  /** The dialect; by default detected from the connection's metadata at {@link #build()}. */
  public JdbcKeyStoreBuilder dialect(Dialect dialect) {
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    return this;
  }

  /** Whose clock judges leases and windows; default {@link ClockSource#DATABASE}. */
  public JdbcKeyStoreBuilder clockSource(ClockSource clockSource) {
    this.clockSource = Objects.requireNonNull(clockSource, "clockSource");
    return this;
  }

  /**
   * Opt-in, for development and tests: {@link #build()} runs the dialect's DDL ({@code CREATE … IF
   * NOT EXISTS}) before it checks the schema. Production schemas belong to a migration tool.
   */
  public JdbcKeyStoreBuilder createSchemaIfMissing() {
    this.createSchema = true;
    return this;
  }

  /**
   * MariaDB claims with MySQL's statement, as on a server without {@code RETURNING}: not API, for
   * the tests that run that statement on the MariaDB test server.
   */
  JdbcKeyStoreBuilder mysqlClaimStatement() {
    this.mysqlStatement = true;
    return this;
  }

  /**
   * Whether {@link #build()} checks that the table, its columns and its sequence exist; default
   * {@code true}. Off, {@code build()} needs no connection when the dialect is named, and a missing
   * table shows on first use.
   */
  public JdbcKeyStoreBuilder validateSchema(boolean validate) {
    this.validateSchema = validate;
    return this;
  }

  /**
   * How often a call runs a transaction that failed with a serialization failure or deadlock;
   * default 3, each further attempt after a random pause of up to 10 ms, doubled per attempt (at
   * most 100 ms). It applies to every call: {@link JdbcKeyStore#inPhase} and {@link
   * JdbcKeyStore#completeWith}, and each SPI call (whose claim also re-runs its statement after a
   * same-key insert race, a deadlock or a row that changed meanwhile, up to 16 statements per
   * transaction).
   *
   * @throws IllegalArgumentException if not positive
   */
  public JdbcKeyStoreBuilder maxTransactionAttempts(int attempts) {
    if (attempts <= 0) {
      throw new IllegalArgumentException("maxTransactionAttempts must be > 0, but was " + attempts);
    }
    this.maxTransactionAttempts = attempts;
    return this;
  }

  /**
   * The query timeout of each of the store's own statements ({@link Statement#setQueryTimeout});
   * default 5 s. A statement that waits longer, on a row lock held by a stalled transaction or on a
   * database that stopped answering, is cancelled and the call throws {@link
   * StoreUnavailableException}, which changes nothing. Without it such a wait has no end on
   * PostgreSQL (no lock timeout by default) and lasts 50 s on MySQL and MariaDB ({@code
   * innodb_lock_wait_timeout}), holding the caller: the engine's one heartbeat thread, say, and
   * with it the renewal of every lease of the instance. Keep it well below the engine's lease
   * (default 30 s). A statement that stores a response is given one second more for each MiB of it
   * begun, up to three times this timeout, to send it (a driver counts the sending in the timeout;
   * an 8 MiB response took more than 5 s on a busy two-core machine). Every statement the work of
   * {@link JdbcKeyStore#inPhase} or {@link JdbcKeyStore#completeWith} creates on the connection it
   * is given gets the same timeout (the work may set its own on a statement): work blocked on a
   * lock its own caller holds in another transaction then fails with the driver's {@code
   * SQLException}, the phase rolls back, instead of holding the record forever. A dead network is
   * the driver's socket timeout's to detect (for example {@code socketTimeout} on PostgreSQL and
   * MySQL), and waiting for a connection is the pool's. H2 is left to its own {@code LOCK_TIMEOUT}
   * (2 s by default): its driver runs a command for each statement that sets a query timeout, which
   * would multiply the cost of a claim by 20.
   *
   * @throws IllegalArgumentException if it is not a whole number of seconds of at least 1 (JDBC
   *     counts whole seconds)
   */
  public JdbcKeyStoreBuilder statementTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "statementTimeout");
    if (timeout.getNano() != 0
        || timeout.getSeconds() < 1
        || timeout.getSeconds() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "statementTimeout must be a whole number of seconds, at least 1"
              + " (JDBC's Statement.setQueryTimeout counts whole seconds), but was "
              + timeout);
    }
    this.statementTimeout = timeout;
    return this;
  }

  /**
   * The largest response the store keeps ({@link JdbcKeyStore#maxResponseBytes()}), lower than what
   * the database keeps; default: the database's limit. The engine stores a not-stored marker in
   * place of a larger response. On MySQL and MariaDB {@link #build()} reads the server's {@code
   * max_allowed_packet}; built without a connection (the dialect named, {@code
   * validateSchema(false)}) it assumes MariaDB's default of 16 MiB unless this is set.
   *
   * @throws IllegalArgumentException if not positive
   */
  public JdbcKeyStoreBuilder maxResponseBytes(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxResponseBytes must be > 0, but was " + bytes);
    }
    this.maxResponseBytes = bytes;
    return this;
  }

  /**
   * Whether {@link JdbcKeyStore#claimAndComplete} (the engine's {@code Work.inOneTransaction}) runs
   * optimistically; default {@code false}. Optimistic, nothing is claimed before the work: the work
   * runs, one {@code INSERT} writes the complete record and the transaction commits, the round
   * trips of the work plus one insert and the commit. The record's primary key arbitrates: a row of
   * the key that the request may claim (released, past its window, its own expired lease) and whose
   * fence is older is written over in the same transaction; any other row (a completed record, one
   * in flight, a concurrent request's) rolls the transaction back with the work's writes, and the
   * request runs again as the default one-transaction request does (claim first), which answers the
   * replay, the mismatch or the in-flight key, or claims a claimable record and runs the work
   * again. So a fresh key costs less, and a replay or a concurrent duplicate costs a run of the
   * work that rolls back. The work must keep every effect inside the transaction, as any
   * one-transaction work must. PostgreSQL, MySQL and MariaDB; {@link #build()} refuses it on H2 and
   * on a Galera node ({@code wsrep_on}), and needs a connection for that check. A fence drawn ahead
   * for optimistic requests is used within a second or thrown away: a fresh key's fence exceeds
   * those of its purged records as long as the retention is longer than that.
   */
  public JdbcKeyStoreBuilder optimisticOneTransaction(boolean optimistic) {
    this.optimisticOneTransaction = optimistic;
    return this;
  }

  /**
   * Builds the store: detects the dialect if none was named, creates the schema if asked, and
   * checks it.
   *
   * @throws StoreUnavailableException if the database cannot be reached
   * @throws KeyStoreException if the schema is missing or incomplete (the message says how to fix
   *     it), the database is not supported, or {@link #maxResponseBytes(long)} is more than it
   *     keeps
   * @throws IllegalStateException if {@link #optimisticOneTransaction(boolean)} is set on a
   *     database that has no optimistic path (H2, a Galera node)
   */
  public JdbcKeyStore build() {
    Dialect d = dialect;
    if (d == null || createSchema || validateSchema || optimisticOneTransaction) {
      Connection c;
      try {
        c = dataSource.getConnection();
      } catch (SQLException e) {
        throw SqlErrors.mapConnect("start-up", e);
      }
      try (c) {
        if (d == null) {
          d = Dialect.detect(c.getMetaData());
        }
        JdbcKeyStore store =
            new JdbcKeyStore(this, d, ResponseLimit.of(d.name(), c, maxResponseBytes));
        if (createSchema) {
          Schema.create(c, JdbcKeyStore.schemaDdl(d, names.table()));
        }
        if (validateSchema) {
          Schema.validate(c, store.sql, names.table());
        }
        if (optimisticOneTransaction) {
          String refusal = OptimisticClaims.refusal(store.sql, c);
          if (refusal != null) {
            throw new IllegalStateException(
                "optimisticOneTransaction is not available on this database: " + refusal);
          }
        }
        store.sql.warnAboutSettings(c);
        return store;
      } catch (SQLException e) {
        throw SqlErrors.map("start-up", names.table(), e);
      }
    }
    return new JdbcKeyStore(this, d, ResponseLimit.withoutConnection(d.name(), maxResponseBytes));
  }
}
