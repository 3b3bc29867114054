package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Operation;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The engine keeping leases over a real database: renewals that survive hundreds of operations and
 * a starved application pool, phases longer than a heartbeat at every isolation level, and phase
 * work that cannot block its record forever. One subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractLeaseKeepingJdbcTest {
  static final Fingerprint FP = Fingerprint.of("POST /payments".getBytes(StandardCharsets.UTF_8));
  static final StoredResponse CREATED = StoredResponse.ofUtf8(201, "charged");
  private static final AtomicInteger KEYS = new AtomicInteger();

  final List<HikariDataSource> pools = new ArrayList<>();
  final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  final ExecutorService threads = Executors.newCachedThreadPool();
  String url;
  String table;
  HikariDataSource admin;

  abstract TestDatabases db();

  @BeforeAll
  void setUp() throws SQLException {
    url = db().url();
    table = "idem_lease_" + db().name().toLowerCase();
    admin = newPool(2);
    AbstractJdbcKeyStoreTest.dropTables(admin, table, "biz_" + table);
    JdbcKeyStore.builder(admin).tableName(table).createSchemaIfMissing().build();
    AbstractJdbcKeyStoreTest.exec(
        admin, "CREATE TABLE biz_" + table + " (id VARCHAR(64) PRIMARY KEY, note VARCHAR(64))");
  }

  @AfterEach
  void clearEvents() {
    events.clear();
  }

  @AfterAll
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(20, TimeUnit.SECONDS)).as("test threads ended").isTrue();
    pools.forEach(HikariDataSource::close);
  }

  HikariDataSource newPool(int size) {
    HikariDataSource p = db().pool(url, size);
    pools.add(p);
    return p;
  }

  static RecordId newId() {
    return RecordId.of("acct", "lease-" + KEYS.incrementAndGet() + "-" + System.nanoTime());
  }

  JdbcKeyStoreBuilder storeOn(DataSource ds) {
    return JdbcKeyStore.builder(ds).tableName(table).statementTimeout(Duration.ofSeconds(1));
  }

  static Outcome call(IdempotencyEngine engine, RecordId id, Operation op) {
    try {
      return engine.execute(id, FP, Work.stepped(op));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static ClaimOutcome retry(JdbcKeyStore peer, RecordId id, Duration lease) {
    return peer.claim(new ClaimRequest(id, FP, Instant.now(), lease, Duration.ofHours(24)));
  }

  int bizRows(String id) throws SQLException {
    try (Connection c = admin.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM biz_" + table + " WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /**
   * Two hundred operations in flight while the application's pool is starved (the test holds every
   * connection): with a pool of its own for renewals, one statement a tick keeps every lease, and
   * no retry from another instance takes a live owner over.
   */
  @Test
  void renewalsOnTheirOwnPoolKeepHundredsOfLeasesWhileTheApplicationPoolIsStarved()
      throws Exception {
    int operations = 200;
    // a renewal tick may stall this long before an owner is told: 2.75 s, wide enough for a runner
    // busy with other suites (a 1.5 s lease with a 300 ms interval was once missed on two loaded
    // cores); the retries below still run for more than one whole lease
    Duration lease = Duration.ofSeconds(3);
    HikariDataSource app = newPool(4);
    JdbcKeyStore store = storeOn(app).renewalDataSource(newPool(1)).build();
    JdbcKeyStore peer = storeOn(newPool(2)).build();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .lease(lease)
                    .heartbeatInterval(Duration.ofMillis(500))
                    .listener(events::add)
                    .build())
            .build()) {
      Starved run = startOperations(engine, operations);
      List<Connection> held = holdEveryConnection(app, 4);
      try {
        long until = System.nanoTime() + lease.toNanos() * 3 / 2;
        int round = 0;
        while (System.nanoTime() < until) {
          for (RecordId id : run.ids) {
            ClaimOutcome o = retry(peer, id, lease);
            assertThat(o)
                .as(
                    "round %d: a retry of %s while its owner runs and the application pool is starved;"
                        + " a takeover means renewals stalled with it",
                    round, id)
                .isInstanceOf(ClaimOutcome.InFlight.class);
          }
          round++;
        }
      } finally {
        closeAll(held);
      }
      run.finish.countDown();
      for (CompletableFuture<Outcome> f : run.owners) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
      }
      assertThat(run.told).as("owners told leaseLost() although renewals went through").hasValue(0);
    }
  }

  /**
   * The same starved pool with renewals on it: renewals cannot get a connection, and every owner is
   * told through leaseLost() before its lease can lapse, so none starts a call out that a retry
   * could repeat.
   */
  @Test
  void ownersAreToldBeforeTheirLeasesLapseWhenRenewalsShareAStarvedPool() throws Exception {
    int operations = 50;
    // the watch tells an owner half a heartbeat interval (here 1 s) before its lease's confirmed
    // end: wide enough that a runner busy with other suites still runs the watch in time (150 ms
    // and then 500 ms margins were each once missed on two loaded cores)
    Duration lease = Duration.ofSeconds(4);
    HikariDataSource app = newPool(4);
    JdbcKeyStore store = storeOn(app).build();
    JdbcKeyStore peer = storeOn(newPool(2)).build();
    Map<RecordId, Instant> told = new ConcurrentHashMap<>();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .lease(lease)
                    .heartbeatInterval(Duration.ofSeconds(2))
                    .listener(
                        e -> {
                          if (e instanceof IdempotencyEvent.LeaseUnconfirmed u) {
                            told.putIfAbsent(u.id(), Instant.now());
                          }
                        })
                    .build())
            .build()) {
      Starved run = startOperations(engine, operations);
      Map<RecordId, Instant> takenOver = new ConcurrentHashMap<>();
      List<Connection> held = holdEveryConnection(app, 4);
      try {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (takenOver.size() < operations && System.nanoTime() < until) {
          for (RecordId id : run.ids) {
            if (!takenOver.containsKey(id)
                && retry(peer, id, Duration.ofMinutes(5)) instanceof ClaimOutcome.Claimed) {
              takenOver.put(id, Instant.now());
            }
          }
        }
      } finally {
        closeAll(held);
      }
      assertThat(takenOver)
          .as("keys taken over once their unrenewed leases lapsed")
          .hasSize(operations);
      for (RecordId id : run.ids) {
        assertThat(told.get(id))
            .as("%s: its owner was told before the takeover at %s", id, takenOver.get(id))
            .isNotNull()
            .isBefore(takenOver.get(id));
      }
      run.finish.countDown();
      for (CompletableFuture<Outcome> f : run.owners) {
        assertThatThrownBy(() -> f.get(60, TimeUnit.SECONDS))
            .as("the old owner's completion is fenced out")
            .hasRootCauseInstanceOf(dev.idempotency.LeaseLostException.class);
      }
      assertThat(run.told)
          .as("owners that saw leaseLost() when they finished")
          .hasValue(operations);
    }
  }

  /** Operations started and running, waiting for {@link #finish}. */
  private final class Starved {
    final List<RecordId> ids = new ArrayList<>();
    final List<CompletableFuture<Outcome>> owners = new ArrayList<>();
    final CountDownLatch finish = new CountDownLatch(1);
    final AtomicInteger told = new AtomicInteger();
  }

  private Starved startOperations(IdempotencyEngine engine, int operations)
      throws InterruptedException {
    Starved run = new Starved();
    CountDownLatch running = new CountDownLatch(operations);
    for (int i = 0; i < operations; i++) {
      RecordId id = newId();
      run.ids.add(id);
      run.owners.add(
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      engine,
                      id,
                      execution -> {
                        running.countDown();
                        run.finish.await();
                        if (execution.leaseLost()) {
                          run.told.incrementAndGet();
                        }
                        return CREATED;
                      }),
              threads));
    }
    assertThat(running.await(60, TimeUnit.SECONDS))
        .as("%d operations claimed and running", operations)
        .isTrue();
    return run;
  }

  private static List<Connection> holdEveryConnection(DataSource pool, int size)
      throws SQLException {
    List<Connection> held = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      held.add(pool.getConnection());
    }
    return held;
  }

  private static void closeAll(List<Connection> held) throws SQLException {
    for (Connection c : held) {
      c.close();
    }
  }

  /**
   * A renewal of more leases than one statement names (600, in statements of 256, padded to powers
   * of two), some of them refused: exactly the refused ones are reported, whichever statement they
   * were in.
   */
  @Test
  void aRenewalOfManyStatementsReportsExactlyTheRefusedLeases() {
    JdbcKeyStore store = storeOn(newPool(2)).clockSource(ClockSource.ENGINE).build();
    Instant t0 = Instant.now();
    Duration lease = Duration.ofSeconds(30);
    Map<RecordId, dev.idempotency.FenceToken> leases = new java.util.LinkedHashMap<>();
    java.util.Set<RecordId> stale = new java.util.HashSet<>();
    for (int i = 0; i < 600; i++) {
      RecordId id = newId();
      ClaimOutcome.Claimed c =
          (ClaimOutcome.Claimed)
              store.claim(new ClaimRequest(id, FP, t0, lease, Duration.ofHours(24)));
      if (i % 7 == 3) {
        store.release(id, c.fence(), t0);
        stale.add(id);
      }
      leases.put(id, c.fence());
    }
    java.util.Set<RecordId> refused = store.heartbeatAll(leases, t0.plusSeconds(10), lease);
    assertThat(refused)
        .as("the leases reported refused out of 600 renewed in three statements")
        .containsExactlyInAnyOrderElementsOf(stale);
    for (RecordId id : leases.keySet()) {
      if (!stale.contains(id)) {
        assertThat(store.lookup(id).orElseThrow().leaseExpiresAt())
            .as("the renewed lease of %s", id)
            .contains(t0.plusSeconds(10).plus(lease));
      }
    }
  }

  /**
   * A job of back-to-back phases, each shorter than a heartbeat interval but together far longer
   * than the lease: renewals skip it while its phases are open, and each phase's commit confirms
   * the lease, so the owner is never told to stop and no retry takes it over.
   */
  @Test
  void backToBackPhasesKeepTheirOwnerUntold() throws Exception {
    Duration lease = Duration.ofMillis(1200);
    JdbcKeyStore store = storeOn(newPool(4)).build();
    JdbcKeyStore peer = storeOn(newPool(2)).build();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .lease(lease)
                    .heartbeatInterval(Duration.ofMillis(300))
                    .listener(events::add)
                    .build())
            .build()) {
      RecordId id = newId();
      AtomicInteger phases = new AtomicInteger();
      java.util.concurrent.atomic.AtomicBoolean told =
          new java.util.concurrent.atomic.AtomicBoolean();
      CountDownLatch claimed = new CountDownLatch(1);
      CompletableFuture<Outcome> owner =
          CompletableFuture.supplyAsync(
              () ->
                  call(
                      engine,
                      id,
                      execution -> {
                        claimed.countDown();
                        long until = System.nanoTime() + 3 * lease.toNanos();
                        while (System.nanoTime() < until) {
                          execution.checkpoint(
                              RecoveryPoint.of("step-" + phases.incrementAndGet()),
                              Connection.class,
                              c -> {
                                Thread.sleep(250); // most of the time inside a phase
                                return null;
                              });
                          told.compareAndSet(false, execution.leaseLost());
                        }
                        return CREATED;
                      }),
              threads);
      assertThat(claimed.await(30, TimeUnit.SECONDS)).as("the job claimed its key").isTrue();
      while (!owner.isDone()) {
        assertThat(retry(peer, id, lease))
            .as("a retry while the job of phases runs")
            .isNotInstanceOf(ClaimOutcome.Claimed.class);
        Thread.sleep(50);
      }
      assertThat(owner.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
      assertThat(told).as("leaseLost() during a job of %d phases", phases.get()).isFalse();
      assertThat(events).noneMatch(e -> e instanceof IdempotencyEvent.LeaseUnconfirmed);
    }
  }

  /**
   * A phase that spans several heartbeats at READ COMMITTED, REPEATABLE READ and SERIALIZABLE: the
   * engine leaves its record out of the renewals while the phase is open, so the phase's fenced
   * write meets no concurrent update of the row and commits the first time.
   */
  @Test
  void aPhaseLongerThanAHeartbeatCommitsAtEveryIsolationLevel() throws Exception {
    for (String isolation :
        List.of(
            "TRANSACTION_READ_COMMITTED",
            "TRANSACTION_REPEATABLE_READ",
            "TRANSACTION_SERIALIZABLE")) {
      HikariDataSource app = db().pool(url, 4, isolation);
      pools.add(app);
      JdbcKeyStore store = storeOn(app).build();
      try (IdempotencyEngine engine =
          IdempotencyEngine.builder(store)
              .config(
                  IdempotencyConfig.builder()
                      .lease(Duration.ofSeconds(3))
                      .heartbeatInterval(Duration.ofMillis(100))
                      .listener(events::add)
                      .build())
              .build()) {
        RecordId id = newId();
        AtomicInteger runs = new AtomicInteger();
        Outcome outcome =
            call(
                engine,
                id,
                execution -> {
                  execution.checkpoint(
                      RecoveryPoint.of("charged"),
                      Connection.class,
                      c -> {
                        runs.incrementAndGet();
                        try (PreparedStatement ps =
                            c.prepareStatement(
                                "INSERT INTO biz_" + table + " (id, note) VALUES (?, ?)")) {
                          ps.setString(1, id.key().value());
                          ps.setString(2, "charged");
                          ps.executeUpdate();
                        }
                        Thread.sleep(800); // eight heartbeat intervals: the work of a long phase
                        return null;
                      });
                  return CREATED;
                });
        assertThat(outcome)
            .as("%s: a phase of eight heartbeats", isolation)
            .isInstanceOf(Outcome.Executed.class);
        assertThat(runs)
            .as(
                "%s: times the phase's work ran (a renewal inside it makes its fenced write fail"
                    + " with a serialization failure, and the phase re-run)",
                isolation)
            .hasValue(1);
        assertThat(bizRows(id.key().value())).as("%s: business rows", isolation).isEqualTo(1);
      }
    }
  }

  /**
   * A phase whose work waits on a lock that the caller itself holds in another open transaction:
   * the store's statement timeout ends the work's statement, so the phase fails instead of holding
   * its record forever.
   */
  @Test
  void phaseWorkWaitingOnALockGetsTheStatementTimeout() throws Exception {
    JdbcKeyStore store = storeOn(newPool(4)).build();
    String row = "locked-" + System.nanoTime();
    AbstractJdbcKeyStoreTest.exec(
        admin, "INSERT INTO biz_" + table + " (id, note) VALUES ('" + row + "', 'x')");
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        Connection caller = admin.getConnection()) {
      caller.setAutoCommit(false);
      try (Statement s = caller.createStatement()) {
        s.executeUpdate("UPDATE biz_" + table + " SET note = 'caller' WHERE id = '" + row + "'");
      }
      try {
        long start = System.nanoTime();
        assertThatThrownBy(
                () ->
                    engine.execute(
                        newId(),
                        FP,
                        Work.stepped(
                            execution -> {
                              execution.checkpoint(
                                  RecoveryPoint.of("charged"),
                                  Connection.class,
                                  c -> {
                                    try (Statement s = c.createStatement()) {
                                      s.executeUpdate(
                                          "UPDATE biz_"
                                              + table
                                              + " SET note = 'phase' WHERE id = '"
                                              + row
                                              + "'");
                                    }
                                    return null;
                                  });
                              return CREATED;
                            })))
            .as("the phase's work blocked on its caller's lock")
            .isInstanceOf(dev.idempotency.core.OperationFailedException.class)
            .cause()
            .isInstanceOf(SQLException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("ended by the 1 s statement timeout, not by" + " the database's own lock timeout")
            .isLessThan(Duration.ofSeconds(20));
      } finally {
        caller.rollback();
      }
    }
  }
}
