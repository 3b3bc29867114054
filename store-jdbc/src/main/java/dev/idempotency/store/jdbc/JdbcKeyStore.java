package dev.idempotency.store.jdbc;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.store.jdbc.internal.Claims;
import dev.idempotency.store.jdbc.internal.Names;
import dev.idempotency.store.jdbc.internal.Nanos;
import dev.idempotency.store.jdbc.internal.OptimisticClaims;
import dev.idempotency.store.jdbc.internal.ParamValues;
import dev.idempotency.store.jdbc.internal.ResponseLimit;
import dev.idempotency.store.jdbc.internal.Schema;
import dev.idempotency.store.jdbc.internal.SqlDialect;
import dev.idempotency.store.jdbc.internal.Transactions;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The {@link dev.idempotency.spi.KeyStore} on a relational database: a unique constraint on {@code
 * (scope, key)} picks the single winner of a claim, {@link #inPhase} / {@link #completeWith} commit
 * the caller's business writes in the same transaction as the fenced checkpoint or completion, and
 * {@link #claimAndComplete} commits a one-step request's claim, business writes and completion in
 * one transaction.
 *
 * <pre>{@code
 * JdbcKeyStore store = JdbcKeyStore.builder(dataSource)   // the application's pool
 *     .tableName("idempotency_records")                  // the default
 *     .build();                                          // detects the dialect, checks the table
 * }</pre>
 *
 * <p>Every claim opens with one plain primary-key read, which alone answers a replay, a mismatch or
 * a live lease (no lock, no write, no commit); only an absent or claimable record goes on to one
 * statement the database arbitrates (see {@code docs/stores-jdbc.md} for each dialect's). Every
 * later write is an {@code UPDATE … WHERE fence = ? AND state = 'I'}. Each SPI call takes a
 * connection from the {@code DataSource}, runs in its own transaction (committing itself if the
 * pool hands out connections without auto-commit) and returns it. Times are judged by the database
 * clock unless {@link JdbcKeyStoreBuilder#clockSource(ClockSource) clockSource(ENGINE)} is set.
 *
 * <p>Thread-safe and immutable; share one instance per table.
 */
public final class JdbcKeyStore implements TransactionalKeyStore<Connection> {
  /** The default of {@link JdbcKeyStoreBuilder#statementTimeout}. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  private final DataSource dataSource;
  private final DataSource renewalDataSource;
  private final Dialect dialect;
  private final ClockSource clockSource;
  private final Names names;
  final SqlDialect sql; // read by JdbcKeyStoreBuilder.build()
  private final Transactions transactions;
  private final Claims claims;
  private final Set<StoreCapability> capabilities;
  private final ResponseLimit responseLimit;

  JdbcKeyStore(JdbcKeyStoreBuilder b, Dialect dialect, ResponseLimit responseLimit) {
    this.dataSource = b.dataSource;
    this.renewalDataSource = b.renewalDataSource != null ? b.renewalDataSource : b.dataSource;
    this.dialect = dialect;
    this.clockSource = b.clockSource;
    this.names = b.names;
    this.sql =
        SqlDialect.of(
            dialect.name(),
            names,
            clockSource == ClockSource.DATABASE,
            (int) b.statementTimeout.toSeconds(),
            b.mysqlStatement);
    this.transactions = new Transactions(sql, names.table(), b.maxTransactionAttempts);
    EnumSet<StoreCapability> caps =
        EnumSet.of(
            StoreCapability.SHARED,
            StoreCapability.TRANSACTIONAL,
            StoreCapability.ONE_TRANSACTION,
            StoreCapability.LISTING,
            StoreCapability.EXTEND_RETENTION);
    if (clockSource == ClockSource.DATABASE) {
      caps.add(StoreCapability.SERVER_CLOCK);
    }
    this.capabilities = Set.copyOf(caps);
    this.responseLimit = responseLimit;
    this.claims =
        new Claims(
            sql,
            transactions,
            dataSource,
            clockSource == ClockSource.DATABASE,
            b.optimisticOneTransaction ? OptimisticClaims.of(sql, names, transactions) : null,
            responseLimit);
  }

  /**
   * Starts a builder over the application's {@code DataSource} (normally a connection pool).
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static JdbcKeyStoreBuilder builder(DataSource dataSource) {
    return new JdbcKeyStoreBuilder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * The schema DDL of {@code dialect}, rewritten for {@code tableName}: the statements {@link
   * JdbcKeyStoreBuilder#createSchemaIfMissing()} runs, for a migration tool when the table is not
   * called {@code idempotency_records}.
   *
   * @throws IllegalArgumentException if the table name is not {@code [schema.]name} of letters,
   *     digits, underscores
   */
  public static String schemaDdl(Dialect dialect, String tableName) {
    return Schema.ddl(dialect.schemaResource(), Names.of(tableName));
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

  /**
   * What one record keeps, fixed at {@link JdbcKeyStoreBuilder#build()}: MySQL and MariaDB half the
   * server's {@code max_allowed_packet} (the drivers send a binary value escaped, up to two bytes a
   * byte), PostgreSQL a {@code bytea}'s 1 GiB, H2 its {@code VARBINARY}'s 1,000,000,000 bytes, each
   * less 64 KiB for the record's other values; or the builder's lower {@link
   * JdbcKeyStoreBuilder#maxResponseBytes(long)}. A larger response is refused before its statement
   * is sent.
   */
  @Override
  public long maxResponseBytes() {
    return responseLimit.bytes();
  }

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    return claims.claim(request);
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    ParamValues p = fencedValues(id, fence, now).lease(positive(lease, "lease"));
    fenced(renewalDataSource, "heartbeat", id, p, sql::heartbeat);
  }

  /**
   * On the {@linkplain JdbcKeyStoreBuilder#renewalDataSource renewal pool}: on PostgreSQL one
   * {@code UPDATE … FROM unnest(…) … RETURNING} per 4096 leases, which names the renewed rows; on
   * the other dialects one {@code UPDATE … WHERE state = 'I' AND (scope, idem_key, fence) IN (…)}
   * per 256 leases, and only when it renews fewer rows than it names, one read of the renewed rows
   * tells which fences were refused. A renewed lease ends at {@code now + lease} or, where a write
   * with a later {@code now} already moved it there, later: a renewal never moves a lease's end
   * back.
   */
  @Override
  public Set<RecordId> heartbeatAll(Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    Objects.requireNonNull(leases, "leases");
    ParamValues p = sql.values(now).lease(positive(lease, "lease"));
    List<RecordId> ids = new ArrayList<>(leases.size());
    List<SqlDialect.OwnedLease> owned = new ArrayList<>(leases.size());
    leases.forEach(
        (id, fence) -> {
          Objects.requireNonNull(id, "leases: a record id");
          Objects.requireNonNull(fence, "leases: the fence of " + id);
          ids.add(id);
          owned.add(new SqlDialect.OwnedLease(id.scope().value(), id.key().value(), fence.value()));
        });
    if (owned.isEmpty()) {
      return Set.of();
    }
    Set<Integer> refused =
        transactions.run(
            renewalDataSource,
            "renewal of " + owned.size() + " leases",
            (c, a) -> sql.renewAll(c, owned, p));
    Set<RecordId> lost = new HashSet<>();
    refused.forEach(i -> lost.add(ids.get(i)));
    return lost;
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(point, "point");
    ParamValues p =
        fencedValues(id, fence, now).lease(positive(lease, "lease")).recoveryPoint(point);
    fenced(dataSource, "checkpoint", id, p, sql::checkpoint);
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(response, "response");
    responseLimit.check(response, "complete of " + id);
    fenced(
        dataSource, "complete", id, fencedValues(id, fence, now).response(response), sql::complete);
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    fenced(dataSource, "release", id, fencedValues(id, fence, now), sql::release);
  }

  /**
   * One {@code UPDATE} of the column {@code keep_until_ns} (the later instant wins), under the
   * fence, on an in-flight or complete row; the reaper's deletion skips a row while it is ahead.
   */
  @Override
  public void extendRetention(RecordId id, FenceToken fence, Instant keepUntil, Instant now) {
    Objects.requireNonNull(keepUntil, "keepUntil");
    ParamValues p = fencedValues(id, fence, now).keepUntil(Nanos.of(keepUntil));
    fenced(dataSource, "extendRetention", id, p, sql::extendRetention);
  }

  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    ParamValues p = sql.values(Instant.EPOCH).record(id);
    return transactions.run(dataSource, "lookup of " + id, (c, a) -> sql.lookup(c, p));
  }

  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    ParamValues p = sql.values(now).limit(positiveLimit(limit));
    return transactions.run(dataSource, "findAbandoned", (c, a) -> sql.findAbandoned(c, p));
  }

  /**
   * Keyset paging on the primary key, in its order: see {@code docs/engine.md}, "Listing records".
   */
  @Override
  public RecordPage list(RecordQuery query) {
    Objects.requireNonNull(query, "query");
    ParamValues p = sql.values(query.now());
    return transactions.run(dataSource, "list", (c, a) -> sql.list(c, query, p));
  }

  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    Objects.requireNonNull(now, "now");
    ParamValues p =
        sql.values(now).limit(positiveLimit(limit)).retention(positive(retention, "retention"));
    return transactions.run(dataSource, "deleteExpired", (c, a) -> sql.deleteExpired(c, p));
  }

  /**
   * Runs {@code work} and the checkpoint to {@code next} in one transaction on one connection. The
   * connection's isolation level is left as the pool configured it: the fenced {@code UPDATE} reads
   * the latest committed row in every dialect at {@code READ COMMITTED} or above. A serialization
   * failure or deadlock (SQLState 40001, 40P01) rolls back and runs the work again, up to {@link
   * JdbcKeyStoreBuilder#maxTransactionAttempts(int)} times; the work must therefore touch only this
   * connection.
   *
   * <p>The work's connection is a view of the pool's that sets the {@linkplain
   * JdbcKeyStoreBuilder#statementTimeout statement timeout} on every statement the work creates; it
   * implements {@link Connection} only, so reach a driver's own interface (PostgreSQL's {@code
   * PGConnection}, say) through {@link Connection#unwrap}, not a cast. On H2, which has no
   * statement timeout here (its lock timeout bounds a wait), the work gets the pool's connection
   * itself.
   */
  @Override
  public <R> R inPhase(
      RecordId id,
      FenceToken fence,
      RecoveryPoint next,
      Instant now,
      Duration lease,
      TransactionalWork<Connection, R> work)
      throws Exception {
    Objects.requireNonNull(next, "next");
    long held = positive(lease, "lease");
    requireOwner(id, fence, now);
    return phase(
        "phase " + next.name(),
        id,
        work,
        r -> fencedValues(id, fence, now).lease(held).recoveryPoint(next),
        sql::checkpoint);
  }

  /** The transaction handle of every work: a {@link Connection}. */
  @Override
  public Class<Connection> transactionType() {
    return Connection.class;
  }

  private static void requireOwner(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
  }

  /**
   * Runs {@code work} and the completion with its response in one transaction; as {@link #inPhase}.
   */
  @Override
  public StoredResponse completeWith(
      RecordId id,
      FenceToken fence,
      Instant now,
      TransactionalWork<Connection, StoredResponse> work)
      throws Exception {
    requireOwner(id, fence, now);
    return phase(
        "completion",
        id,
        work,
        r -> {
          Objects.requireNonNull(r, "the work's response");
          responseLimit.check(r, "completion of " + id);
          return fencedValues(id, fence, now).response(r);
        },
        sql::complete);
  }

  /**
   * The claim, {@code work} and the completion in one transaction on one connection, auto-commit
   * switched off for it, with one commit (see {@link TransactionalKeyStore#claimAndComplete} for
   * the rules). A concurrent one-transaction claim of the same record waits for this transaction
   * (H2: on the uncommitted row's unique-index entry; MySQL and MariaDB: on its record lock;
   * PostgreSQL: on the key's advisory lock, this dialect inserting a fresh key's record at the end)
   * and, once it ends, decides on the row it committed. That wait is bounded by the {@linkplain
   * JdbcKeyStoreBuilder#statementTimeout statement timeout} (H2: its {@code LOCK_TIMEOUT}); a claim
   * that reaches it answers {@link ClaimOutcome.InFlight} with this request's lease as the hint. A
   * serialization failure or deadlock (for example the claim's insert meeting a row committed after
   * a {@code REPEATABLE READ} snapshot) rolls back and runs the claim and the work again, up to
   * {@link JdbcKeyStoreBuilder#maxTransactionAttempts(int)} times. The work's connection is as
   * {@link #inPhase}'s.
   *
   * <p>With {@link JdbcKeyStoreBuilder#optimisticOneTransaction(boolean)} the work runs first, on a
   * fresh claim, and one insert of the complete record ends the transaction; when any row of the
   * key exists the attempt rolls back and the request runs as described above. The work then runs
   * for a record that is not absent too, and rolls back, unlike the SPI's rule for a claim that is
   * not won: the option's trade-off.
   */
  @Override
  public OneTransactionOutcome claimAndComplete(
      ClaimRequest request, OneTransactionWork<Connection> work) throws Exception {
    return claims.claimAndComplete(request, work);
  }

  @Override
  public String toString() {
    return "JdbcKeyStore[" + dialect + ", table=" + names.table() + ", clock=" + clockSource + "]";
  }

  /** One transaction of an owner's: {@code work}, then {@code write} with its values. */
  private <R> R phase(
      String what,
      RecordId id,
      TransactionalWork<Connection, R> work,
      Function<R, ParamValues> valuesFor,
      Transactions.FencedWrite write)
      throws Exception {
    Objects.requireNonNull(work, "work");
    return transactions.inTransaction(dataSource, what + " of " + id, work, valuesFor, write);
  }

  private ParamValues fencedValues(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(fence, "fence");
    return sql.values(now).record(id).fence(fence);
  }

  private void fenced(
      DataSource from, String op, RecordId id, ParamValues p, Transactions.FencedWrite write) {
    transactions.run(
        from,
        op + " of " + id,
        (c, a) -> {
          write.run(c, p);
          return Boolean.TRUE; // the write succeeded: a fence that no longer holds throws instead
        });
  }

  private static long positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + d);
    }
    return Nanos.of(d);
  }

  private static int positiveLimit(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, but was " + limit);
    }
    return limit;
  }
}
