package dev.idempotency.store.jdbc;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStoreException;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.StoreUnavailableException;
import dev.idempotency.spi.TransactionCallbacks;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.spi.TransactionalWork;
import dev.idempotency.store.jdbc.internal.Names;
import dev.idempotency.store.jdbc.internal.Nanos;
import dev.idempotency.store.jdbc.internal.ResponseCodec;
import dev.idempotency.store.jdbc.internal.SqlDialect;
import dev.idempotency.store.jdbc.internal.SqlErrors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The {@link dev.idempotency.spi.KeyStore} on a relational database: a unique constraint on {@code (scope, key)}
 * picks the single winner of a claim, and {@link #inPhase} / {@link #completeWith} commit the caller's business
 * writes in the same transaction as the fenced checkpoint or completion.
 *
 * <pre>{@code
 * JdbcKeyStore store = JdbcKeyStore.builder(dataSource)   // the application's pool
 *     .tableName("idempotency_records")                  // the default
 *     .build();                                          // detects the dialect, checks the table
 * }</pre>
 *
 * <p>Every claim is one statement the database arbitrates (see {@code docs/stores-jdbc.md} for each dialect's);
 * every later write is an {@code UPDATE … WHERE fence = ? AND state = 'I'}. Each SPI call takes a connection from
 * the {@code DataSource}, runs in its own transaction (committing itself if the pool hands out connections without
 * auto-commit) and returns it. Times are judged by the database clock unless
 * {@link Builder#clockSource(ClockSource) clockSource(ENGINE)} is set.
 *
 * <p>Thread-safe and immutable; share one instance per table.
 *
 * <p>One class of about 750 lines: it is the store's only public entry point, and each SPI method is a few lines
 * over shared plumbing. The parts that are jobs of their own, the transaction loop of {@code inPhase} and
 * {@code completeWith}, schema creation and validation, and the typed parameters, are the seams along which it
 * splits into {@code internal} classes; the SQL itself already lives in the dialects.
 */
public final class JdbcKeyStore implements TransactionalKeyStore<Connection> {
  /** The default of {@link Builder#statementTimeout}. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  private static final System.Logger LOG = System.getLogger(JdbcKeyStore.class.getName());

  private final DataSource dataSource;
  private final DataSource renewalDataSource;
  private final Dialect dialect;
  private final ClockSource clockSource;
  private final Names names;
  private final SqlDialect sql;
  private final int maxTransactionAttempts;
  private final Set<StoreCapability> capabilities;

  private JdbcKeyStore(Builder b, Dialect dialect) {
    this.dataSource = b.dataSource;
    this.renewalDataSource = b.renewalDataSource != null ? b.renewalDataSource : b.dataSource;
    this.dialect = dialect;
    this.clockSource = b.clockSource;
    this.names = b.names;
    this.sql = SqlDialect.of(dialect.name(), names, clockSource == ClockSource.DATABASE,
        (int) b.statementTimeout.toSeconds());
    this.maxTransactionAttempts = b.maxTransactionAttempts;
    EnumSet<StoreCapability> caps = EnumSet.of(StoreCapability.SHARED, StoreCapability.TRANSACTIONAL);
    if (clockSource == ClockSource.DATABASE) {
      caps.add(StoreCapability.SERVER_CLOCK);
    }
    this.capabilities = Set.copyOf(caps);
  }

  /**
   * Starts a builder over the application's {@code DataSource} (normally a connection pool).
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * The schema DDL of {@code dialect}, rewritten for {@code tableName}: the statements
   * {@link Builder#createSchemaIfMissing()} runs, for a migration tool when the table is not called
   * {@code idempotency_records}.
   *
   * @throws IllegalArgumentException if the table name is not {@code [schema.]name} of letters, digits, underscores
   */
  public static String schemaDdl(Dialect dialect, String tableName) {
    Names n = Names.of(tableName);
    try (InputStream in = JdbcKeyStore.class.getResourceAsStream("/" + dialect.schemaResource())) {
      if (in == null) {
        throw new KeyStoreException("schema resource " + dialect.schemaResource() + " is missing from the jar");
      }
      return n.render(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new KeyStoreException("cannot read " + dialect.schemaResource() + ": " + e, e);
    }
  }

  /** The dialect in use. */
  public Dialect dialect() {
    return dialect;
  }

  /** The clock that judges leases and windows. */
  public ClockSource clockSource() {
    return clockSource;
  }

  /** The table, as written in SQL. */
  public String tableName() {
    return names.table();
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return capabilities;
  }

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    Map<String, Object> p = params(request.id(), request.now());
    byte[] fp = request.fingerprint().bytes();
    long window = Nanos.of(request.replayWindow());
    p.put("fp", fp);
    p.put("lease", Nanos.of(request.lease()));
    p.put("window", window);
    p.put("nonce", ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
    ClaimOutcome outcome = run(dataSource, "claim of " + request.id(),
        (c, autoCommit) -> sql.claim(c, autoCommit, p, fp, window));
    // With the database clock each statement judges by its own start time; a claim that started before the
    // owner's claim and waited for its row lock would report more lease left than the lease. It is a hint:
    // never more than the asking claim's lease.
    if (clockSource == ClockSource.DATABASE && outcome instanceof ClaimOutcome.InFlight f
        && f.leaseRemaining().compareTo(request.lease()) > 0) {
      return new ClaimOutcome.InFlight(request.lease());
    }
    return outcome;
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Map<String, Object> p = fencedParams(id, fence, now);
    p.put("lease", positive(lease, "lease"));
    fenced(renewalDataSource, "heartbeat", id, fence, p, sql::heartbeat);
  }

  /**
   * One {@code UPDATE … WHERE state = 'I' AND (scope, idem_key, fence) IN (…)} per 256 leases, on the
   * {@linkplain Builder#renewalDataSource renewal pool}; only when it renews fewer rows than it names, one read of
   * the renewed rows tells which fences were refused.
   */
  @Override
  public Set<RecordId> heartbeatAll(Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    Objects.requireNonNull(leases, "leases");
    Map<String, Object> p = new HashMap<>();
    p.put("now", nowParam(now));
    p.put("lease", positive(lease, "lease"));
    List<RecordId> ids = new ArrayList<>(leases.size());
    List<SqlDialect.OwnedLease> owned = new ArrayList<>(leases.size());
    leases.forEach((id, fence) -> {
      Objects.requireNonNull(id, "leases: a record id");
      Objects.requireNonNull(fence, "leases: the fence of " + id);
      ids.add(id);
      owned.add(new SqlDialect.OwnedLease(sql.scopeParam(id.scope()), id.key().value(), fence.value()));
    });
    if (owned.isEmpty()) {
      return Set.of();
    }
    Set<Integer> refused = run(renewalDataSource, "renewal of " + owned.size() + " leases",
        (c, a) -> sql.renewAll(c, owned, p));
    Set<RecordId> lost = new HashSet<>();
    refused.forEach(i -> lost.add(ids.get(i)));
    return lost;
  }

  @Override
  public void checkpoint(RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(point, "point");
    Map<String, Object> p = fencedParams(id, fence, now);
    p.put("lease", positive(lease, "lease"));
    putPoint(p, point);
    fenced(dataSource, "checkpoint", id, fence, p, sql::checkpoint);
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(response, "response");
    Map<String, Object> p = fencedParams(id, fence, now);
    putResponse(p, response);
    fenced(dataSource, "complete", id, fence, p, sql::complete);
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    fenced(dataSource, "release", id, fence, fencedParams(id, fence, now), sql::release);
  }

  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    Map<String, Object> p = params(id, Instant.EPOCH);
    return run(dataSource, "lookup of " + id, (c, a) -> sql.lookup(c, p));
  }

  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, but was " + limit);
    }
    Map<String, Object> p = new HashMap<>();
    p.put("now", nowParam(now));
    p.put("limit", limit);
    return run(dataSource, "findAbandoned", (c, a) -> sql.findAbandoned(c, p));
  }

  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    Objects.requireNonNull(now, "now");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, but was " + limit);
    }
    Map<String, Object> p = new HashMap<>();
    p.put("now", nowParam(now));
    p.put("retention", positive(retention, "retention"));
    p.put("limit", limit);
    return run(dataSource, "deleteExpired", (c, a) -> {
      // MySQL/MariaDB: a ranged DELETE under REPEATABLE READ takes gap locks that would block concurrent claims;
      // the batch needs no more than READ COMMITTED.
      if (dialect != Dialect.MYSQL || c.getTransactionIsolation() == Connection.TRANSACTION_READ_COMMITTED) {
        return sql.deleteExpired(c, p);
      }
      int previous = c.getTransactionIsolation();
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      try {
        return sql.deleteExpired(c, p);
      } finally {
        c.setTransactionIsolation(previous);
      }
    });
  }

  /**
   * Runs {@code work} and the checkpoint to {@code next} in one transaction on one connection, then tells the
   * execution. The connection's isolation level is left as the pool configured it: the fenced {@code UPDATE}
   * reads the latest committed row in every dialect at {@code READ COMMITTED} or above. A serialization failure
   * or deadlock (SQLState 40001, 40P01) rolls back and runs the work again, up to
   * {@link Builder#maxTransactionAttempts(int)} times; the work must therefore touch only this connection.
   */
  @Override
  public <R> R inPhase(Execution execution, RecoveryPoint next, TransactionalWork<Connection, R> work)
      throws Exception {
    Objects.requireNonNull(next, "next");
    R result = inTransaction("phase " + next.name(), execution, work, r -> {
      Map<String, Object> p = fencedParams(execution.recordId(), execution.fence(), execution.now());
      p.put("lease", positive(execution.lease(), "lease"));
      putPoint(p, next);
      return p;
    }, sql::checkpoint);
    TransactionCallbacks.of(execution).phaseCommitted(next);
    return result;
  }

  /** Runs {@code work} and the completion with its response in one transaction; as {@link #inPhase}. */
  @Override
  public StoredResponse completeWith(Execution execution, TransactionalWork<Connection, StoredResponse> work)
      throws Exception {
    StoredResponse response = inTransaction("completion", execution, work, r -> {
      Objects.requireNonNull(r, "the work's response");
      Map<String, Object> p = fencedParams(execution.recordId(), execution.fence(), execution.now());
      putResponse(p, r);
      return p;
    }, sql::complete);
    TransactionCallbacks.of(execution).completionCommitted(response);
    return response;
  }

  @Override
  public String toString() {
    return "JdbcKeyStore[" + dialect + ", table=" + names.table() + ", clock=" + clockSource + "]";
  }

  // ------------------------------------------------------------------------------------------------ plumbing

  @FunctionalInterface
  private interface SqlWork<R> {
    R run(Connection c, boolean autoCommit) throws SQLException;
  }

  @FunctionalInterface
  private interface FencedSql {
    int run(Connection c, Map<String, Object> p) throws SQLException;
  }

  @FunctionalInterface
  private interface ParamsFor<R> {
    Map<String, Object> of(R result);
  }

  private Map<String, Object> params(RecordId id, Instant now) {
    Objects.requireNonNull(id, "id");
    Map<String, Object> p = new HashMap<>();
    p.put("scope", sql.scopeParam(id.scope()));
    p.put("key", id.key().value());
    p.put("now", nowParam(now));
    return p;
  }

  private Map<String, Object> fencedParams(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(fence, "fence");
    Map<String, Object> p = params(id, now);
    p.put("fence", fence.value());
    // outside a phase the database clock is read by the write itself (H2, see H2Dialect)
    p.put("pinned", 0L);
    p.put("elapsed", 0L);
    p.put("wallNow", 0L);
    return p;
  }

  private long nowParam(Instant now) {
    Objects.requireNonNull(now, "now");
    return clockSource == ClockSource.ENGINE ? Nanos.of(now) : 0L; // with the database clock it is not in the SQL
  }

  private static long positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + d);
    }
    return Nanos.of(d);
  }

  private static void putPoint(Map<String, Object> p, RecoveryPoint point) {
    p.put("rpName", point.name());
    p.put("rpData", point.data());
  }

  private static void putResponse(Map<String, Object> p, StoredResponse response) {
    p.put("status", response.status());
    p.put("headers", ResponseCodec.encodeHeaders(response));
    p.put("body", response.body());
  }

  private void fenced(DataSource from, String op, RecordId id, FenceToken fence, Map<String, Object> p,
      FencedSql write) {
    run(from, op + " of " + id, (c, a) -> {
      checkFenced(c, id, fence, p, write.run(c, p));
      return null;
    });
  }

  private void checkFenced(Connection c, RecordId id, FenceToken fence, Map<String, Object> p, int count)
      throws SQLException {
    if (count == 0) {
      throw new LeaseLostException(id, fence, sql.describe(c, p));
    }
    if (count != 1) {
      throw new KeyStoreException("a fenced write on " + id + " changed " + count + " rows of " + names.table()
          + "; is its primary key (scope, idem_key)?");
    }
  }

  private static Connection connect(DataSource from, String what) {
    try {
      return from.getConnection();
    } catch (SQLException e) {
      throw SqlErrors.mapConnect(what, e);
    }
  }

  /** One SPI call: its own connection and transaction; retried on a deadlock or serialization failure. */
  private <R> R run(DataSource from, String what, SqlWork<R> work) {
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
        if (SqlErrors.isRetryable(e) && attempt < maxTransactionAttempts) {
          continue;
        }
        throw SqlErrors.map(what + " on " + names.table(), names.table(), e);
      } finally {
        closeQuietly(c);
      }
    }
  }

  private <R> R inTransaction(String what, Execution execution, TransactionalWork<Connection, R> work,
      ParamsFor<R> paramsFor, FencedSql write) throws Exception {
    Objects.requireNonNull(execution, "execution");
    Objects.requireNonNull(work, "work");
    TransactionCallbacks callbacks = TransactionCallbacks.of(execution);
    String label = what + " of " + execution.recordId();
    // the engine stops renewing this lease until the phase closes: a renewal committed while the transaction is
    // open would make its fenced write fail at REPEATABLE READ and SERIALIZABLE (a concurrent update of the row)
    callbacks.phaseOpening();
    try {
      for (int attempt = 1; ; attempt++) {
        Connection c = connect(dataSource, label);
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
            throw SqlErrors.map(label, names.table(), e);
          }
          R result;
          try {
            result = work.run(sql.withStatementTimeout(c));
          } catch (Exception e) {
            rollbackQuietly(c, e);
            if (e instanceof SQLException s && SqlErrors.isRetryable(s) && attempt < maxTransactionAttempts) {
              continue;
            }
            throw e;
          }
          try {
            Map<String, Object> p = paramsFor.of(result);
            if (pinned != null) {
              p.put("pinned", pinned.databaseNanos());
              p.put("elapsed", System.nanoTime() - pinned.nanoTime());
              p.put("wallNow", Nanos.of(Instant.now()));
            }
            checkFenced(c, execution.recordId(), execution.fence(), p, write.run(c, p));
            c.commit();
            return result;
          } catch (SQLException e) {
            rollbackQuietly(c, e);
            if (SqlErrors.isRetryable(e) && attempt < maxTransactionAttempts) {
              continue;
            }
            throw SqlErrors.map(label + " on " + names.table(), names.table(), e);
          } catch (RuntimeException e) {
            rollbackQuietly(c, e);
            throw e;
          }
        } finally {
          if (restoreAutoCommit) {
            try {
              c.setAutoCommit(true);
            } catch (SQLException ignored) {
              // the connection is broken; closing it below hands it back to the pool, which discards it
            }
          }
          closeQuietly(c);
        }
      }
    } finally {
      callbacks.phaseClosed();
    }
  }

  private static void rollbackQuietly(Connection c, Throwable cause) {
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

  /**
   * Configures a {@link JdbcKeyStore}. Not thread-safe; {@link #build()} yields an immutable store.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private DataSource renewalDataSource;
    private Names names = Names.of(Names.DEFAULT_TABLE);
    private Dialect dialect;
    private ClockSource clockSource = ClockSource.DATABASE;
    private boolean createSchema;
    private boolean validateSchema = true;
    private int maxTransactionAttempts = 3;
    private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * The records table, optionally schema-qualified; default {@code idempotency_records}. Its fence sequence is
     * {@code <table>_fence_seq}.
     *
     * @throws IllegalArgumentException if it is not {@code [schema.]name} of letters, digits and underscores
     */
    public Builder tableName(String tableName) {
      this.names = Names.of(Objects.requireNonNull(tableName, "tableName"));
      return this;
    }

    /**
     * A pool of its own for lease renewals ({@link JdbcKeyStore#heartbeatAll}, {@link JdbcKeyStore#heartbeat});
     * default: the application's {@code DataSource}. The engine renews all of an instance's leases in one
     * statement per heartbeat interval, so one connection is enough. Give renewals their own pool when the
     * application's can run dry under load: renewals waiting for a connection (HikariCP waits up to its
     * {@code connectionTimeout}, 30 s by default) leave every lease of the instance unconfirmed, and the engine
     * then tells each owner through {@code Execution.leaseLost()} to stop before its lease lapses. Keep that pool's
     * connection timeout well below the engine's {@code leaseSafetyMargin()}.
     */
    public Builder renewalDataSource(DataSource renewalDataSource) {
      this.renewalDataSource = Objects.requireNonNull(renewalDataSource, "renewalDataSource");
      return this;
    }

    /** The dialect; by default detected from the connection's metadata at {@link #build()}. */
    public Builder dialect(Dialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /** Whose clock judges leases and windows; default {@link ClockSource#DATABASE}. */
    public Builder clockSource(ClockSource clockSource) {
      this.clockSource = Objects.requireNonNull(clockSource, "clockSource");
      return this;
    }

    /**
     * Opt-in, for development and tests: {@link #build()} runs the dialect's DDL ({@code CREATE … IF NOT EXISTS})
     * before it checks the schema. Production schemas belong to a migration tool.
     */
    public Builder createSchemaIfMissing() {
      this.createSchema = true;
      return this;
    }

    /**
     * Whether {@link #build()} checks that the table, its columns and its sequence exist; default {@code true}.
     * Off, {@code build()} needs no connection when the dialect is named, and a missing table shows on first use.
     */
    public Builder validateSchema(boolean validate) {
      this.validateSchema = validate;
      return this;
    }

    /**
     * How often a call runs a transaction that failed with a serialization failure or deadlock; default 3. It
     * applies to every call: {@link JdbcKeyStore#inPhase} and {@link JdbcKeyStore#completeWith}, and each SPI call
     * (whose claim also re-runs its statement after a same-key insert race, a deadlock or a row that changed
     * meanwhile, up to 16 statements per transaction).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxTransactionAttempts(int attempts) {
      if (attempts <= 0) {
        throw new IllegalArgumentException("maxTransactionAttempts must be > 0, but was " + attempts);
      }
      this.maxTransactionAttempts = attempts;
      return this;
    }

    /**
     * The query timeout of each of the store's own statements ({@link Statement#setQueryTimeout}); default 5 s.
     * A statement that waits longer, on a row lock held by a stalled transaction or on a database that stopped
     * answering, is cancelled and the call throws {@link StoreUnavailableException}, which changes nothing.
     * Without it such a wait has no end on PostgreSQL (no lock timeout by default) and lasts 50 s on MySQL and
     * MariaDB ({@code innodb_lock_wait_timeout}), holding the caller: the engine's one heartbeat thread, say, and
     * with it the renewal of every lease of the instance. Keep it well below the engine's lease (default 30 s).
     * Every statement the work of {@link JdbcKeyStore#inPhase} or {@link JdbcKeyStore#completeWith} creates on the
     * connection it is given gets the same timeout (the work may set its own on a statement): work blocked on a lock
     * its own caller holds in another transaction then fails with the driver's {@code SQLException}, the phase
     * rolls back, instead of holding the record forever. A dead network is the driver's socket
     * timeout's to detect (for example {@code socketTimeout} on PostgreSQL and MySQL), and waiting for a
     * connection is the pool's. H2 is left to its own {@code LOCK_TIMEOUT} (2 s by default): its driver runs a
     * command for each statement that sets a query timeout, which would multiply the cost of a claim by 20.
     *
     * @throws IllegalArgumentException if it is not a whole number of seconds of at least 1 (JDBC counts whole
     *     seconds)
     */
    public Builder statementTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "statementTimeout");
      if (timeout.getNano() != 0 || timeout.getSeconds() < 1 || timeout.getSeconds() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("statementTimeout must be a whole number of seconds, at least 1"
            + " (JDBC's Statement.setQueryTimeout counts whole seconds), but was " + timeout);
      }
      this.statementTimeout = timeout;
      return this;
    }

    /**
     * Builds the store: detects the dialect if none was named, creates the schema if asked, and checks it.
     *
     * @throws StoreUnavailableException if the database cannot be reached
     * @throws KeyStoreException if the schema is missing or incomplete (the message says how to fix it), or the
     *     database is not supported
     */
    public JdbcKeyStore build() {
      Dialect d = dialect;
      if (d == null || createSchema || validateSchema) {
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
          JdbcKeyStore store = new JdbcKeyStore(this, d);
          if (createSchema) {
            store.createSchema(c);
          }
          if (validateSchema) {
            store.validateSchema(c);
          }
          if (d == Dialect.H2) {
            store.warnIfCommitsAreDelayed(c);
          }
          return store;
        } catch (SQLException e) {
          throw SqlErrors.map("start-up", names.table(), e);
        }
      }
      return new JdbcKeyStore(this, d);
    }
  }

  private void createSchema(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    try (Statement s = c.createStatement()) {
      for (String ddl : statements(schemaDdl(dialect, names.table()))) {
        s.execute(ddl);
      }
      if (!autoCommit) {
        c.commit();
      }
    }
  }

  /**
   * H2 writes a file database's commits to disk up to {@code WRITE_DELAY} ms (default 500) after the commit, and
   * has no redo log: a process killed in that time loses them, completed records included, and a client that already
   * holds the response then gets its retry executed again (the crash tests showed it on every kill). Said at
   * start-up, naming the setting; not an error, because a development database may accept it.
   */
  private void warnIfCommitsAreDelayed(Connection c) throws SQLException {
    String path;
    List<String> delays = new ArrayList<>();
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT DATABASE_PATH()")) {
        path = rs.next() ? rs.getString(1) : null;
      }
      try (ResultSet rs = s.executeQuery(
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
      LOG.log(System.Logger.Level.WARNING, "The H2 database " + path + " writes commits to disk up to WRITE_DELAY="
          + String.join("/", delays) + " ms after they return: a process killed in that time loses them, and"
          + " idempotency records with them (a completed request would run again on its retry). Add"
          + " ;WRITE_DELAY=0 to the JDBC URL of a file database whose records must survive a crash.");
    }
  }

  private void validateSchema(Connection c) throws SQLException {
    for (String check : sql.validationStatements()) {
      try (Statement s = c.createStatement()) {
        s.execute(check);
      } catch (SQLException e) {
        if (!c.getAutoCommit()) {
          rollbackQuietly(c, e);
        }
        if (SqlErrors.isSchemaProblem(e)) {
          throw new KeyStoreException(SqlErrors.schemaMessage(names.table(), e), e);
        }
        throw e;
      }
    }
    if (!c.getAutoCommit()) {
      c.rollback();
    }
  }

  private static List<String> statements(String script) {
    StringBuilder sb = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        sb.append(line).append('\n');
      }
    }
    List<String> out = new ArrayList<>();
    for (String s : sb.toString().split(";")) {
      if (!s.isBlank()) {
        out.add(s.strip());
      }
    }
    return out;
  }
}
