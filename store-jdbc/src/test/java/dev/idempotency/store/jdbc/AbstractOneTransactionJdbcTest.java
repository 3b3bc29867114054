package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Answer;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.StoredResponsePolicy;
import dev.idempotency.core.Work;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one-transaction mode ({@code IdempotencyEngine.execute} with {@code Work.inOneTransaction}
 * over {@code JdbcKeyStore.claimAndComplete}) on a real database, run by a subclass per database:
 * what the engine answers and publishes, the work's writes committing with the record or not at
 * all, a duplicate that waits on the uncommitted claim until the statement timeout (answered in
 * flight, not unavailable), duplicates racing at each isolation level a pool may set, and the
 * work's session killed by the database mid-work. The TCK's rules 10.9 to 10.13 are proven by
 * {@link JdbcTransactionalKeyStoreContract}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractOneTransactionJdbcTest {
  static final Fingerprint FP = Fingerprint.of("POST /orders".getBytes(StandardCharsets.UTF_8));
  private static final AtomicInteger KEYS = new AtomicInteger();

  final List<HikariDataSource> pools = new ArrayList<>();
  String url;
  String table;
  String orders;
  HikariDataSource pool;
  JdbcKeyStore store;

  abstract TestDatabases db();

  /**
   * Whether the stores under test run one-transaction requests optimistically ({@link
   * JdbcKeyStoreBuilder#optimisticOneTransaction}); a subclass per database runs the suite so.
   */
  boolean optimistic() {
    return false;
  }

  /**
   * A statement run on another connection that ends the session of the connection {@code c}, or
   * null when the database has none that leaves the others running.
   */
  abstract String killSessionOf(Connection c) throws SQLException;

  @BeforeAll
  void setUp() throws SQLException {
    url = db().url();
    table = "one_tx_" + db().name().toLowerCase() + (optimistic() ? "_opt" : "");
    orders = table + "_orders";
    pool = newPool(12, null);
    AbstractJdbcKeyStoreTest.dropTables(pool, table, orders);
    AbstractJdbcKeyStoreTest.exec(
        pool, "CREATE TABLE " + orders + " (order_key VARCHAR(200) NOT NULL, by_run VARCHAR(50))");
    store = storeOver(pool, Duration.ofSeconds(5));
  }

  @AfterAll
  void tearDown() throws SQLException {
    if (pool == null) {
      return; // skipped without its server (outside CI): nothing was created
    }
    try {
      AbstractJdbcKeyStoreTest.dropTables(pool, table, orders);
    } finally {
      pools.forEach(HikariDataSource::close);
    }
  }

  HikariDataSource newPool(int size, String isolation) {
    HikariDataSource p = db().pool(url, size, isolation);
    pools.add(p);
    return p;
  }

  /**
   * A pool whose transactions run at {@code isolation}: the pool's own setting here; a subclass
   * behind a pooler in transaction pooling mode sets it per transaction instead.
   */
  DataSource isolatedPool(int size, String isolation) {
    return newPool(size, isolation);
  }

  JdbcKeyStore storeOver(DataSource ds, Duration statementTimeout) {
    return JdbcKeyStore.builder(ds)
        .tableName(table)
        .statementTimeout(statementTimeout)
        .createSchemaIfMissing()
        .optimisticOneTransaction(optimistic())
        .build();
  }

  static RecordId newId() {
    return RecordId.of("acct-1", "order-" + KEYS.incrementAndGet() + "-" + System.nanoTime());
  }

  static StoredResponse created(String body) {
    return StoredResponse.of(201, Map.of(), body.getBytes(StandardCharsets.UTF_8));
  }

  /** The application's one statement: an order row under the request's key. */
  void insertOrder(Connection tx, RecordId id, String run) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO " + orders + " (order_key, by_run) VALUES (?, ?)")) {
      ps.setString(1, id.key().value());
      ps.setString(2, run);
      ps.executeUpdate();
    }
  }

  /** A request whose work inserts the order of {@code run} and answers 201 with {@code body}. */
  Outcome order(IdempotencyEngine engine, RecordId id, String run, String body)
      throws OperationFailedException, InterruptedException {
    return engine.execute(
        id,
        FP,
        Work.inOneTransaction(
            Connection.class,
            (Connection tx) -> {
              insertOrder(tx, id, run);
              return created(body);
            }));
  }

  static ClaimRequest request(RecordId id) {
    return new ClaimRequest(id, FP, Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1));
  }

  /**
   * A two-commit claim of {@code id} made while a one-transaction request of it is open (its work
   * waiting), within a deadline of 15 s; the open request then commits. Returns the claim's
   * outcome.
   */
  static ClaimOutcome twoCommitClaimWhileARunHolds(JdbcKeyStore store, RecordId id)
      throws Exception {
    CountDownLatch inWork = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService holder = Executors.newSingleThreadExecutor();
    try {
      Future<OneTransactionOutcome> held =
          holder.submit(
              () ->
                  store.claimAndComplete(
                      request(id),
                      (Connection tx, ClaimOutcome.Claimed claim) -> {
                        inWork.countDown();
                        assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
                        return created("held");
                      }));
      assertThat(inWork.await(10, TimeUnit.SECONDS)).as("the open request's work").isTrue();
      ClaimOutcome outcome =
          Assertions.assertTimeoutPreemptively(
              Duration.ofSeconds(15),
              () -> store.claim(request(id)),
              "the two-commit claim still waits after 15 s");
      release.countDown();
      assertThat(held.get(10, TimeUnit.SECONDS))
          .isInstanceOf(OneTransactionOutcome.Committed.class);
      return outcome;
    } finally {
      release.countDown();
      holder.shutdownNow();
      assertThat(holder.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  int ordersOf(RecordId id) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + orders + " WHERE order_key = ?")) {
      ps.setString(1, id.key().value());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @Test
  void aRequestCommitsItsOrderAndItsRecordOnceAndIsReplayed() throws Exception {
    List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    RecordId id = newId();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(IdempotencyConfig.builder().listener(events::add).build())
            .build()) {
      Outcome first = order(engine, id, "first", "order 1");
      assertThat(first).isInstanceOf(Outcome.Executed.class);
      assertThat(((Outcome.Executed) first).stored()).isTrue();
      Outcome retry = order(engine, id, "retry", "order 2");
      assertThat(retry).isInstanceOf(Outcome.Replayed.class);
      assertThat(((Outcome.Replayed) retry).response().body())
          .isEqualTo("order 1".getBytes(StandardCharsets.UTF_8));
      // a two-commit request of the same key replays the same record
      assertThat(engine.execute(id, FP, Work.stepped(execution -> created("never"))))
          .isInstanceOf(Outcome.Replayed.class);
    }
    assertThat(ordersOf(id)).isEqualTo(1);
    assertThat(events.stream().map(e -> e.getClass().getSimpleName()).toList())
        .containsExactlyElementsOf(
            optimistic()
                // the optimistic retry claimed, ran its work and rolled it back before it replayed
                ? List.of("Claimed", "Completed", "Claimed", "Replayed", "Replayed")
                : List.of("Claimed", "Completed", "Replayed", "Replayed"));
  }

  @Test
  void workThatThrowsLeavesNeitherOrderNorKeyAndTheRetryRunsAsAFirstAttempt() throws Exception {
    List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    RecordId id = newId();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(IdempotencyConfig.builder().listener(events::add).build())
            .build()) {
      IllegalStateException declined = new IllegalStateException("card declined");
      assertThatThrownBy(
              () ->
                  engine.execute(
                      id,
                      FP,
                      Work.inOneTransaction(
                          Connection.class,
                          (Connection tx) -> {
                            insertOrder(tx, id, "declined");
                            throw declined;
                          })))
          .isInstanceOf(OperationFailedException.class)
          .hasCause(declined)
          .matches(e -> ((OperationFailedException) e).keyReleased(), "keyReleased");
      assertThat(store.lookup(id)).isEmpty();
      assertThat(ordersOf(id)).isZero();
      Outcome retry = order(engine, id, "retry", "order");
      assertThat(retry).isInstanceOf(Outcome.Executed.class);
      assertThat(((Outcome.Executed) retry).resumed()).isFalse();
    }
    assertThat(ordersOf(id)).isEqualTo(1);
    assertThat(events.stream().map(e -> e.getClass().getSimpleName()).toList())
        .containsExactly("Claimed", "Released", "Claimed", "Completed");
  }

  @Test
  void aResponseThePolicyExcludesRollsTheOrderBackWithTheKey() throws Exception {
    RecordId id = newId();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .storedResponsePolicy(StoredResponsePolicy.storeAllExcept(429))
                    .build())
            .build()) {
      Outcome outcome =
          engine.execute(
              id,
              FP,
              Work.inOneTransaction(
                  Connection.class,
                  (Connection tx) -> {
                    insertOrder(tx, id, "throttled");
                    return StoredResponse.of(429, Map.of(), new byte[0]);
                  }));
      assertThat(outcome).isInstanceOf(Outcome.Executed.class);
      assertThat(((Outcome.Executed) outcome).stored()).isFalse();
      assertThat(((Outcome.Executed) outcome).response().status()).isEqualTo(429);
    }
    assertThat(store.lookup(id)).isEmpty();
    assertThat(ordersOf(id)).isZero();
  }

  /**
   * A not-stored marker the work returns (a binding's, for an answer over its limit) commits with
   * the order whatever the engine's policy says of its 500; an answer that stores the marker in
   * place of the response it sends is judged by that response, and one the policy excludes rolls
   * the order back with the key (the HTTP binding answers so).
   */
  @Test
  void aMarkerIsStoredAsItIsButAnAnswerIsJudgedByTheResponseItSends() throws Exception {
    RecordId kept = newId();
    RecordId refused = newId();
    StoredResponse marker = StoredResponse.notStoredMarker(201, "over the binding's limit");
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .storedResponsePolicy(StoredResponsePolicy.storeAllExcept(500))
                    .build())
            .build()) {
      Outcome first =
          engine.execute(
              kept,
              FP,
              Work.inOneTransaction(
                  Connection.class,
                  (Connection tx) -> {
                    insertOrder(tx, kept, "kept");
                    return marker;
                  }));
      assertThat(((Outcome.Executed) first).stored()).as("under the engine's policy").isTrue();
      Outcome second =
          engine.execute(
              refused,
              FP,
              Work.inOneTransaction(
                  Connection.class,
                  (Connection tx) -> {
                    insertOrder(tx, refused, "refused");
                    return Answer.storedAs(StoredResponse.ofUtf8(500, "the answer sent"), marker);
                  }));
      assertThat(((Outcome.Executed) second).stored())
          .as("the policy judges the response an answer sends")
          .isFalse();
      assertThat(((Outcome.Executed) second).response().bodyAsUtf8()).isEqualTo("the answer sent");
    }
    assertThat(ordersOf(kept)).isEqualTo(1);
    assertThat(store.lookup(refused)).isEmpty();
    assertThat(ordersOf(refused)).isZero();
  }

  /**
   * A response over the store's declared limit (lowered here with the builder's {@code
   * maxResponseBytes}): the caller gets it whole, the not-stored marker commits with the order in
   * the one transaction, and the retry replays the marker without running the work again.
   */
  @Test
  void aResponseOverTheStoresLimitCommitsTheNotStoredMarkerWithTheOrder() throws Exception {
    JdbcKeyStore small =
        JdbcKeyStore.builder(pool)
            .tableName(table)
            .maxResponseBytes(2048)
            .optimisticOneTransaction(optimistic())
            .build();
    assertThat(small.maxResponseBytes()).isEqualTo(2048);
    RecordId id = newId();
    String large = "x".repeat(4096);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyEngine engine = IdempotencyEngine.builder(small).build()) {
      Outcome first =
          engine.execute(
              id,
              FP,
              Work.inOneTransaction(
                  Connection.class,
                  (Connection tx) -> {
                    runs.incrementAndGet();
                    insertOrder(tx, id, "large");
                    return created(large);
                  }));
      assertThat(first)
          .isInstanceOfSatisfying(
              Outcome.Executed.class,
              executed -> {
                assertThat(executed.stored()).as("stored").isFalse();
                assertThat(executed.response().body())
                    .isEqualTo(large.getBytes(StandardCharsets.UTF_8));
              });
      Outcome retry =
          engine.execute(
              id,
              FP,
              Work.inOneTransaction(
                  Connection.class,
                  (Connection tx) -> {
                    runs.incrementAndGet();
                    return created("never");
                  }));
      assertThat(retry)
          .isInstanceOfSatisfying(
              Outcome.Replayed.class,
              replayed ->
                  assertThat(replayed.response().notStoredReason())
                      .hasValueSatisfying(
                          reason -> assertThat(reason).startsWith("201; ").contains("2048")));
    }
    // optimistic: the retry's work ran, and rolled back, before the replay
    assertThat(runs.get()).as("the work's runs").isEqualTo(optimistic() ? 2 : 1);
    assertThat(ordersOf(id)).isEqualTo(1);
  }

  /**
   * The duplicate of a request whose transaction stays open past the statement timeout (a process
   * frozen mid-work, a slow work) is answered in flight, and replays once the first commits.
   */
  @Test
  void aDuplicateThatWaitsPastTheStatementTimeoutIsAnsweredInFlight() throws Exception {
    Assumptions.assumeFalse(optimistic(), "optimistic: the first to commit wins, see below");
    JdbcKeyStore impatient = storeOver(pool, Duration.ofSeconds(1));
    RecordId id = newId();
    CountDownLatch inWork = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService first = Executors.newSingleThreadExecutor();
    try (IdempotencyEngine engine = IdempotencyEngine.builder(impatient).build()) {
      Future<Outcome> holder =
          first.submit(
              () ->
                  engine.execute(
                      id,
                      FP,
                      Work.inOneTransaction(
                          Connection.class,
                          (Connection tx) -> {
                            insertOrder(tx, id, "holder");
                            inWork.countDown();
                            if (!release.await(60, TimeUnit.SECONDS)) {
                              throw new IllegalStateException("never released");
                            }
                            return created("order");
                          })));
      assertThat(inWork.await(30, TimeUnit.SECONDS)).isTrue();
      Outcome duplicate = order(engine, id, "duplicate", "duplicate");
      assertThat(duplicate).isInstanceOf(Outcome.InFlightConflict.class);
      release.countDown();
      assertThat(holder.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
      assertThat(
              engine.execute(
                  id,
                  FP,
                  Work.inOneTransaction(
                      Connection.class, (Connection tx) -> created("after the commit"))))
          .isInstanceOf(Outcome.Replayed.class);
    } finally {
      release.countDown();
      first.shutdownNow();
      first.awaitTermination(30, TimeUnit.SECONDS);
    }
    assertThat(ordersOf(id)).isEqualTo(1);
  }

  /**
   * Optimistic, a request whose work is still running has written nothing of its key: a duplicate
   * that runs meanwhile commits first, and the first request's insert then meets that record, rolls
   * its order back and replays the duplicate's response: the documented trade-off.
   */
  @Test
  void optimisticTheFirstToCommitWinsAndTheSlowerRequestReplaysIt() throws Exception {
    Assumptions.assumeTrue(optimistic(), "claiming first, the first to claim wins (above)");
    RecordId id = newId();
    CountDownLatch inWork = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger holderRuns = new AtomicInteger();
    ExecutorService first = Executors.newSingleThreadExecutor();
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build()) {
      Future<Outcome> holder =
          first.submit(
              () ->
                  engine.execute(
                      id,
                      FP,
                      Work.inOneTransaction(
                          Connection.class,
                          (Connection tx) -> {
                            holderRuns.incrementAndGet();
                            insertOrder(tx, id, "holder");
                            inWork.countDown();
                            if (!release.await(60, TimeUnit.SECONDS)) {
                              throw new IllegalStateException("never released");
                            }
                            return created("holder");
                          })));
      assertThat(inWork.await(30, TimeUnit.SECONDS)).isTrue();
      Outcome duplicate = order(engine, id, "duplicate", "duplicate");
      assertThat(duplicate).isInstanceOf(Outcome.Executed.class);
      release.countDown();
      assertThat(holder.get(30, TimeUnit.SECONDS))
          .isInstanceOfSatisfying(
              Outcome.Replayed.class,
              replayed -> assertThat(replayed.response().bodyAsUtf8()).isEqualTo("duplicate"));
    } finally {
      release.countDown();
      first.shutdownNow();
      first.awaitTermination(30, TimeUnit.SECONDS);
    }
    assertThat(holderRuns.get()).as("the holder's work ran once, and rolled back").isEqualTo(1);
    assertThat(ordersOf(id)).isEqualTo(1);
    assertThat(orderRunsOf(id)).containsExactly("duplicate");
  }

  List<String> orderRunsOf(RecordId id) throws SQLException {
    List<String> runs = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT by_run FROM " + orders + " WHERE order_key = ?")) {
      ps.setString(1, id.key().value());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          runs.add(rs.getString(1));
        }
      }
    }
    return runs;
  }

  /**
   * Duplicates racing through pools at each isolation level: a claim that met a row committed after
   * its snapshot (REPEATABLE READ, SERIALIZABLE) is a serialization failure the store runs again,
   * and every duplicate ends replaying the one commit.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "TRANSACTION_READ_COMMITTED",
        "TRANSACTION_REPEATABLE_READ",
        "TRANSACTION_SERIALIZABLE"
      })
  void racingDuplicatesCommitOnceAtEveryIsolationLevel(String isolation) throws Exception {
    int racers = 8;
    JdbcKeyStore isolated = storeOver(isolatedPool(racers + 2, isolation), Duration.ofSeconds(5));
    RecordId id = newId();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(racers);
    List<Outcome> outcomes = new ArrayList<>();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(isolated)
            .config(
                IdempotencyConfig.builder()
                    .inFlightPolicy(
                        InFlightPolicy.waitUpTo(Duration.ofSeconds(20), Duration.ofMillis(20)))
                    .build())
            .build()) {
      List<Future<Outcome>> calls = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        String run = "racer " + i;
        calls.add(
            threads.submit(
                () -> {
                  if (!start.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never started");
                  }
                  return engine.execute(
                      id,
                      FP,
                      Work.inOneTransaction(
                          Connection.class,
                          (Connection tx) -> {
                            runs.incrementAndGet();
                            insertOrder(tx, id, run);
                            Thread.sleep(100);
                            return created(run);
                          }));
                }));
      }
      start.countDown();
      for (Future<Outcome> call : calls) {
        outcomes.add(call.get(90, TimeUnit.SECONDS));
      }
    } finally {
      threads.shutdownNow();
      threads.awaitTermination(30, TimeUnit.SECONDS);
    }
    List<Outcome> executed = outcomes.stream().filter(Outcome.Executed.class::isInstance).toList();
    assertThat(executed).as("the commits among %s", outcomes).hasSize(1);
    byte[] body = ((Outcome.Executed) executed.get(0)).response().body();
    assertThat(outcomes)
        .filteredOn(Outcome.Replayed.class::isInstance)
        .hasSize(racers - 1)
        .allSatisfy(o -> assertThat(((Outcome.Replayed) o).response().body()).isEqualTo(body));
    assertThat(ordersOf(id)).isEqualTo(1);
  }

  /**
   * The database ends the work's session mid-work (what it does when the application's process or
   * host dies): the transaction is gone, the key stays absent, and the retry runs as a first
   * attempt.
   */
  @Test
  void aSessionKilledMidWorkRollsEverythingBack() throws Exception {
    try (Connection probe = pool.getConnection()) {
      Assumptions.assumeTrue(
          killSessionOf(probe) != null, db() + " cannot end one session and keep the others");
    }
    RecordId id = newId();
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build()) {
      assertThatThrownBy(
              () ->
                  engine.execute(
                      id,
                      FP,
                      Work.inOneTransaction(
                          Connection.class,
                          (Connection tx) -> {
                            insertOrder(tx, id, "killed");
                            String kill = killSessionOf(tx);
                            try (Connection other = pool.getConnection();
                                Statement s = other.createStatement()) {
                              s.execute(kill);
                            }
                            insertOrder(tx, id, "after the kill");
                            return created("never");
                          })))
          .isInstanceOf(OperationFailedException.class)
          .hasCauseInstanceOf(SQLException.class);
      assertThat(store.lookup(id)).isEmpty();
      assertThat(ordersOf(id)).isZero();
      Outcome retry = order(engine, id, "retry", "order");
      assertThat(retry).isInstanceOf(Outcome.Executed.class);
    }
    assertThat(ordersOf(id)).isEqualTo(1);
  }
}
