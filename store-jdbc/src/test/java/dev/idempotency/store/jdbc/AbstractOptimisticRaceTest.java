package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The arbitration of optimistic one-transaction requests ({@link
 * JdbcKeyStoreBuilder#optimisticOneTransaction}) on a real database, through the store's {@code
 * claimAndComplete}: each test makes the record's primary key meet another writer of the key at the
 * moment that matters and checks that one request's order commits, with its record, and that a
 * request whose work ran and rolled back leaves no order and answers from the record (replay, in
 * flight, mismatch), or takes it when it is claimable (released, past its window, its lease
 * expired): in the same transaction when the record's fence is older than the request's, so that
 * the work runs once, otherwise through the claim-first path, which runs it again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractOptimisticRaceTest {
  private static final Fingerprint FP =
      Fingerprint.of("POST /pay".getBytes(StandardCharsets.UTF_8));
  private static final Fingerprint OTHER_FP =
      Fingerprint.of("POST /refund".getBytes(StandardCharsets.UTF_8));
  private static final AtomicInteger KEYS = new AtomicInteger();

  /**
   * Longer than a fence drawn ahead is kept (1 s): after this pause the optimistic store's next
   * request draws new fences.
   */
  private static final long FENCE_BATCH_MAX_AGE_MS = 1_100;

  private HikariDataSource pool;
  private String table;
  private String orders;
  private JdbcKeyStore optimistic;
  private JdbcKeyStore pessimistic;

  abstract TestDatabases db();

  @BeforeAll
  void setUp() throws SQLException {
    table = "opt_race_" + db().name().toLowerCase() + "_" + AbstractJdbcKeyStoreTest.JVM;
    orders = table + "_orders";
    pool = db().pool(db().url(), 12, null);
    AbstractJdbcKeyStoreTest.dropTables(pool, table, orders);
    AbstractJdbcKeyStoreTest.exec(
        pool, "CREATE TABLE " + orders + " (order_key VARCHAR(200) NOT NULL, by_run VARCHAR(50))");
    pessimistic = JdbcKeyStore.builder(pool).tableName(table).createSchemaIfMissing().build();
    optimistic = JdbcKeyStore.builder(pool).tableName(table).optimisticOneTransaction(true).build();
  }

  @AfterAll
  void tearDown() throws SQLException {
    if (pool == null) {
      return;
    }
    try {
      AbstractJdbcKeyStoreTest.dropTables(pool, table, orders);
    } finally {
      pool.close();
    }
  }

  private static RecordId newId() {
    return RecordId.of("acct-1", "pay-" + KEYS.incrementAndGet() + "-" + System.nanoTime());
  }

  private static ClaimRequest request(RecordId id, Fingerprint fp, Duration lease) {
    return new ClaimRequest(id, fp, Instant.now(), lease, Duration.ofHours(1));
  }

  private static ClaimRequest request(RecordId id) {
    return request(id, FP, Duration.ofSeconds(30));
  }

  private static StoredResponse created(String run) {
    return StoredResponse.of(201, Map.of(), run.getBytes(StandardCharsets.UTF_8));
  }

  private void insertOrder(Connection tx, RecordId id, String run) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO " + orders + " (order_key, by_run) VALUES (?, ?)")) {
      ps.setString(1, id.key().value());
      ps.setString(2, run);
      ps.executeUpdate();
    }
  }

  private List<String> ordersOf(RecordId id) throws SQLException {
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

  /** An optimistic request whose work counts its runs and inserts the order of {@code run}. */
  private OneTransactionOutcome pay(RecordId id, String run, AtomicInteger runs) throws Exception {
    return optimistic.claimAndComplete(
        request(id),
        (Connection tx, ClaimOutcome.Claimed claim) -> {
          runs.incrementAndGet();
          insertOrder(tx, id, run);
          return created(run);
        });
  }

  private static String body(OneTransactionOutcome outcome) {
    if (outcome instanceof OneTransactionOutcome.Committed c) {
      return c.response().bodyAsUtf8();
    }
    ClaimOutcome.Completed replay =
        (ClaimOutcome.Completed) ((OneTransactionOutcome.NotRun) outcome).outcome();
    return replay.response().bodyAsUtf8();
  }

  /**
   * Two optimistic requests of one fresh key whose works both ran (each inserted its order) and
   * reach the record's insert together: one commits, the other's insert meets its record, rolls its
   * order back and replays it.
   */
  @Test
  @Timeout(60)
  void twoOptimisticRequestsReleasedTogetherCommitOneOrderAndTheOtherReplaysIt() throws Exception {
    RecordId id = newId();
    CyclicBarrier bothRan = new CyclicBarrier(2);
    AtomicInteger runs = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    List<OneTransactionOutcome> outcomes = new ArrayList<>();
    try {
      List<Future<OneTransactionOutcome>> calls = new ArrayList<>();
      for (String run : List.of("a", "b")) {
        calls.add(
            threads.submit(
                () ->
                    optimistic.claimAndComplete(
                        request(id),
                        (Connection tx, ClaimOutcome.Claimed claim) -> {
                          runs.incrementAndGet();
                          insertOrder(tx, id, run);
                          bothRan.await(20, TimeUnit.SECONDS);
                          return created(run);
                        })));
      }
      for (Future<OneTransactionOutcome> call : calls) {
        outcomes.add(call.get(40, TimeUnit.SECONDS));
      }
    } finally {
      threads.shutdownNow();
      assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(outcomes).filteredOn(OneTransactionOutcome.Committed.class::isInstance).hasSize(1);
    OneTransactionOutcome winner =
        outcomes.stream()
            .filter(OneTransactionOutcome.Committed.class::isInstance)
            .findFirst()
            .get();
    OneTransactionOutcome loser = outcomes.get(outcomes.indexOf(winner) == 0 ? 1 : 0);
    assertThat(loser)
        .isInstanceOfSatisfying(
            OneTransactionOutcome.NotRun.class,
            n -> assertThat(n.outcome()).isInstanceOf(ClaimOutcome.Completed.class));
    assertThat(body(loser)).as("the replay is the winner's response").isEqualTo(body(winner));
    assertThat(runs.get()).as("both works ran").isEqualTo(2);
    assertThat(ordersOf(id)).as("the orders committed").containsExactly(body(winner));
  }

  /**
   * A two-commit claim committed while the optimistic work runs: the insert meets its in-flight
   * record, the work's order rolls back, and the request answers in flight.
   */
  @Test
  @Timeout(60)
  void aTwoCommitClaimMadeWhileTheWorkRunsWinsAndTheOrderRollsBack() throws Exception {
    RecordId id = newId();
    AtomicInteger runs = new AtomicInteger();
    ClaimOutcome[] twoCommit = new ClaimOutcome[1];
    OneTransactionOutcome outcome =
        optimistic.claimAndComplete(
            request(id),
            (Connection tx, ClaimOutcome.Claimed claim) -> {
              runs.incrementAndGet();
              insertOrder(tx, id, "optimistic");
              twoCommit[0] = pessimistic.claim(request(id)); // its own connection, committed
              return created("optimistic");
            });
    assertThat(twoCommit[0]).isInstanceOf(ClaimOutcome.Claimed.class);
    assertThat(outcome)
        .isInstanceOfSatisfying(
            OneTransactionOutcome.NotRun.class,
            n -> assertThat(n.outcome()).isInstanceOf(ClaimOutcome.InFlight.class));
    assertThat(runs.get()).isEqualTo(1);
    assertThat(ordersOf(id)).isEmpty();
    assertThat(optimistic.lookup(id).orElseThrow().state()).isEqualTo(KeyState.IN_FLIGHT);
  }

  /**
   * An optimistic and a pessimistic one-transaction request of one key, both in their works at
   * once: exactly one order commits, with the record, and the other request replays it.
   */
  @Test
  @Timeout(60)
  void anOptimisticAndAPessimisticRequestCommitOneOrder() throws Exception {
    RecordId id = newId();
    CountDownLatch pessimisticInWork = new CountDownLatch(1);
    CountDownLatch releasePessimistic = new CountDownLatch(1);
    AtomicInteger pessimisticRuns = new AtomicInteger();
    AtomicInteger optimisticRuns = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    OneTransactionOutcome slow;
    OneTransactionOutcome fast;
    try {
      Future<OneTransactionOutcome> held =
          threads.submit(
              () ->
                  pessimistic.claimAndComplete(
                      request(id),
                      (Connection tx, ClaimOutcome.Claimed claim) -> {
                        pessimisticRuns.incrementAndGet();
                        insertOrder(tx, id, "pessimistic");
                        pessimisticInWork.countDown();
                        assertThat(releasePessimistic.await(30, TimeUnit.SECONDS)).isTrue();
                        return created("pessimistic");
                      }));
      assertThat(pessimisticInWork.await(20, TimeUnit.SECONDS)).isTrue();
      // PostgreSQL: the pessimistic request has written nothing yet (it inserts its record at the
      // end, under its advisory lock), so this insert succeeds. MariaDB: its in-flight row is
      // written, uncommitted, and this insert waits on it, so the pessimistic request is released
      // while it waits.
      Future<OneTransactionOutcome> racing =
          threads.submit(() -> pay(id, "optimistic", optimisticRuns));
      Thread.sleep(300);
      releasePessimistic.countDown();
      fast = racing.get(30, TimeUnit.SECONDS);
      slow = held.get(30, TimeUnit.SECONDS);
    } finally {
      releasePessimistic.countDown();
      threads.shutdownNow();
      assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    List<OneTransactionOutcome> both = List.of(fast, slow);
    assertThat(both).filteredOn(OneTransactionOutcome.Committed.class::isInstance).hasSize(1);
    assertThat(both)
        .filteredOn(OneTransactionOutcome.NotRun.class::isInstance)
        .singleElement()
        .satisfies(
            n ->
                assertThat(((OneTransactionOutcome.NotRun) n).outcome())
                    .isInstanceOf(ClaimOutcome.Completed.class));
    assertThat(body(fast)).isEqualTo(body(slow));
    assertThat(ordersOf(id)).containsExactly(body(fast));
    assertThat(optimistic.lookup(id).orElseThrow().state()).isEqualTo(KeyState.COMPLETE);
  }

  /**
   * A completed record: the optimistic request's work runs and rolls back, leaving no order, and
   * the request replays; a request of another fingerprint is a mismatch, its work rolled back too.
   */
  @Test
  @Timeout(60)
  void aCompletedRecordIsReplayedAndTheRolledBackWorkLeavesNoOrder() throws Exception {
    RecordId id = newId();
    AtomicInteger runs = new AtomicInteger();
    assertThat(pay(id, "first", runs)).isInstanceOf(OneTransactionOutcome.Committed.class);
    OneTransactionOutcome retry = pay(id, "retry", runs);
    assertThat(retry).isInstanceOf(OneTransactionOutcome.NotRun.class);
    assertThat(body(retry)).isEqualTo("first");
    OneTransactionOutcome other =
        optimistic.claimAndComplete(
            request(id, OTHER_FP, Duration.ofSeconds(30)),
            (Connection tx, ClaimOutcome.Claimed claim) -> {
              runs.incrementAndGet();
              insertOrder(tx, id, "other");
              return created("other");
            });
    assertThat(other)
        .isInstanceOfSatisfying(
            OneTransactionOutcome.NotRun.class,
            n -> assertThat(n.outcome()).isInstanceOf(ClaimOutcome.Mismatch.class));
    assertThat(runs.get()).as("every work ran; two rolled back").isEqualTo(3);
    assertThat(ordersOf(id)).containsExactly("first");
  }

  /**
   * A released record (a row that keeps its fence) older than the request's fence: the insert meets
   * it, and the complete record is written over it in the same transaction, so the work, which
   * already ran, commits without running again (an HTTP application runs once per request).
   */
  @Test
  @Timeout(60)
  void aReleasedRecordIsTakenInTheSameTransactionWithoutRunningTheWorkAgain() throws Exception {
    AtomicInteger warmUp = new AtomicInteger();
    RecordId id = newId();
    ClaimOutcome.Claimed first = (ClaimOutcome.Claimed) pessimistic.claim(request(id));
    pessimistic.release(id, first.fence(), Instant.now());
    Thread.sleep(FENCE_BATCH_MAX_AGE_MS); // the optimistic store draws its fences after the release
    assertThat(pay(newId(), "draws the fences", warmUp))
        .isInstanceOf(OneTransactionOutcome.Committed.class);
    AtomicInteger runs = new AtomicInteger();
    List<FenceToken> fences = new ArrayList<>();
    OneTransactionOutcome outcome = payRecordingFences(id, "after the release", runs, fences);
    assertThat(outcome)
        .isInstanceOfSatisfying(
            OneTransactionOutcome.Committed.class,
            c -> assertThat(c.claim().fence().isNewerThan(first.fence())).isTrue());
    assertThat(runs.get()).as("the work's runs").isEqualTo(1);
    assertThat(ordersOf(id)).containsExactly("after the release");
    assertThat(optimistic.lookup(id).orElseThrow().fence()).isEqualTo(fences.get(0));
  }

  /**
   * A released record whose fence is newer than the optimistic store's next fence (drawn before the
   * record was claimed): it is not written over, and the claim-first path claims it with a newer
   * fence and runs the work again.
   */
  @Test
  @Timeout(60)
  void aReleasedRecordWithANewerFenceIsClaimedByTheFallback() throws Exception {
    Thread.sleep(FENCE_BATCH_MAX_AGE_MS);
    AtomicInteger warmUp = new AtomicInteger();
    assertThat(pay(newId(), "draws the fences", warmUp))
        .isInstanceOf(OneTransactionOutcome.Committed.class);
    RecordId id = newId();
    ClaimOutcome.Claimed first = (ClaimOutcome.Claimed) pessimistic.claim(request(id));
    pessimistic.release(id, first.fence(), Instant.now());
    AtomicInteger runs = new AtomicInteger();
    List<FenceToken> fences = new ArrayList<>();
    OneTransactionOutcome outcome = payRecordingFences(id, "after the release", runs, fences);
    assertThat(outcome)
        .isInstanceOfSatisfying(
            OneTransactionOutcome.Committed.class,
            c -> assertThat(c.claim().fence().isNewerThan(first.fence())).isTrue());
    assertThat(runs.get()).as("the optimistic run and the fallback's").isEqualTo(2);
    assertThat(fences.get(0).isNewerThan(first.fence())).as("the drawn-ahead fence").isFalse();
    assertThat(ordersOf(id)).containsExactly("after the release");
    assertThat(optimistic.lookup(id).orElseThrow().fence()).isEqualTo(fences.get(1));
  }

  /**
   * A completed record past its replay window counts as absent: taken in the same transaction, the
   * work run once.
   */
  @Test
  @Timeout(60)
  void aRecordPastItsWindowIsTakenInTheSameTransaction() throws Exception {
    RecordId id = newId();
    AtomicInteger runs = new AtomicInteger();
    OneTransactionOutcome old =
        pessimistic.claimAndComplete(
            new ClaimRequest(id, FP, Instant.now(), Duration.ofSeconds(30), Duration.ofMillis(100)),
            (Connection tx, ClaimOutcome.Claimed claim) -> {
              insertOrder(tx, id, "old");
              return created("old");
            });
    assertThat(old).isInstanceOf(OneTransactionOutcome.Committed.class);
    Thread.sleep(FENCE_BATCH_MAX_AGE_MS); // past the window, and fences drawn after the record's
    OneTransactionOutcome outcome =
        optimistic.claimAndComplete(
            new ClaimRequest(id, FP, Instant.now(), Duration.ofSeconds(30), Duration.ofMillis(100)),
            (Connection tx, ClaimOutcome.Claimed claim) -> {
              runs.incrementAndGet();
              insertOrder(tx, id, "new");
              return created("new");
            });
    assertThat(outcome).isInstanceOf(OneTransactionOutcome.Committed.class);
    assertThat(runs.get()).isEqualTo(1);
    assertThat(ordersOf(id)).containsExactlyInAnyOrder("old", "new");
    assertThat(optimistic.lookup(id).orElseThrow().response().orElseThrow().bodyAsUtf8())
        .isEqualTo("new");
  }

  /**
   * An in-flight record of the same request whose lease expired, without a recovery point: taken
   * over in the same transaction, the work run once; the old owner can no longer complete it.
   */
  @Test
  @Timeout(60)
  void anExpiredLeaseIsTakenOverInTheSameTransaction() throws Exception {
    RecordId id = newId();
    ClaimOutcome.Claimed abandoned =
        (ClaimOutcome.Claimed) pessimistic.claim(request(id, FP, Duration.ofMillis(200)));
    Thread.sleep(FENCE_BATCH_MAX_AGE_MS); // the lease expires, judged by the database clock
    AtomicInteger runs = new AtomicInteger();
    OneTransactionOutcome outcome = pay(id, "taken over", runs);
    assertThat(outcome)
        .isInstanceOfSatisfying(
            OneTransactionOutcome.Committed.class,
            c -> assertThat(c.claim().fence().isNewerThan(abandoned.fence())).isTrue());
    assertThat(runs.get()).isEqualTo(1);
    assertThat(ordersOf(id)).containsExactly("taken over");
    assertThat(optimistic.lookup(id).orElseThrow().state()).isEqualTo(KeyState.COMPLETE);
    assertThatThrownBy(
            () -> pessimistic.complete(id, abandoned.fence(), created("old owner"), Instant.now()))
        .isInstanceOf(LeaseLostException.class);
  }

  private OneTransactionOutcome payRecordingFences(
      RecordId id, String run, AtomicInteger runs, List<FenceToken> fences) throws Exception {
    return optimistic.claimAndComplete(
        request(id),
        (Connection tx, ClaimOutcome.Claimed claim) -> {
          runs.incrementAndGet();
          fences.add(claim.fence());
          insertOrder(tx, id, run);
          return created(run);
        });
  }

  /**
   * A claim-first request re-claiming a released record holds its row while its work runs; an
   * optimistic request of the key whose wait for that row reaches the statement timeout is answered
   * in flight, its order rolled back, and the holder then commits.
   */
  @Test
  @Timeout(60)
  void anOptimisticRequestThatWaitsPastTheStatementTimeoutIsAnsweredInFlight() throws Exception {
    RecordId id = newId();
    ClaimOutcome.Claimed first = (ClaimOutcome.Claimed) pessimistic.claim(request(id));
    pessimistic.release(id, first.fence(), Instant.now());
    JdbcKeyStore impatient =
        JdbcKeyStore.builder(pool)
            .tableName(table)
            .statementTimeout(Duration.ofSeconds(1))
            .optimisticOneTransaction(true)
            .build();
    CountDownLatch inWork = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    ExecutorService holder = Executors.newSingleThreadExecutor();
    try {
      Future<OneTransactionOutcome> held =
          holder.submit(
              () ->
                  pessimistic.claimAndComplete(
                      request(id),
                      (Connection tx, ClaimOutcome.Claimed claim) -> {
                        insertOrder(tx, id, "holder");
                        inWork.countDown();
                        assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
                        return created("holder");
                      }));
      assertThat(inWork.await(20, TimeUnit.SECONDS)).isTrue();
      OneTransactionOutcome waited =
          impatient.claimAndComplete(
              request(id),
              (Connection tx, ClaimOutcome.Claimed claim) -> {
                runs.incrementAndGet();
                insertOrder(tx, id, "impatient");
                return created("impatient");
              });
      assertThat(waited)
          .isInstanceOfSatisfying(
              OneTransactionOutcome.NotRun.class,
              n -> assertThat(n.outcome()).isInstanceOf(ClaimOutcome.InFlight.class));
      release.countDown();
      assertThat(held.get(20, TimeUnit.SECONDS))
          .isInstanceOf(OneTransactionOutcome.Committed.class);
    } finally {
      release.countDown();
      holder.shutdownNow();
      assertThat(holder.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(runs.get()).isEqualTo(1);
    assertThat(ordersOf(id)).containsExactly("holder");
  }

  /** Work that throws: nothing is written, the exception comes out as it was, the work ran once. */
  @Test
  @Timeout(60)
  void workThatThrowsLeavesNothing() throws Exception {
    RecordId id = newId();
    IllegalStateException declined = new IllegalStateException("declined");
    AtomicInteger runs = new AtomicInteger();
    Exception thrown = null;
    try {
      optimistic.claimAndComplete(
          request(id),
          (Connection tx, ClaimOutcome.Claimed claim) -> {
            runs.incrementAndGet();
            insertOrder(tx, id, "declined");
            throw declined;
          });
    } catch (IllegalStateException e) {
      thrown = e;
    }
    assertThat(thrown).isSameAs(declined);
    assertThat(runs.get()).isEqualTo(1);
    assertThat(ordersOf(id)).isEmpty();
    assertThat(optimistic.lookup(id)).isEmpty();
  }
}
