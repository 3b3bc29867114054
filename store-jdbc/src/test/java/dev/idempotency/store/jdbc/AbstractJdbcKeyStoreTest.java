package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
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
import dev.idempotency.testing.TestDatabases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store-specific tests, run against each database by a subclass of a few lines: claim outcomes
 * and their round trips, fencing, fence monotonicity, races across several pools, retention, the
 * database clock with short real leases, statement timeouts, and start-up errors. The transaction
 * of {@code inPhase} and {@code completeWith} is the TCK's to test ({@link
 * JdbcTransactionalKeyStoreContract}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcKeyStoreTest {
  static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration WINDOW = Duration.ofHours(24);
  static final Fingerprint FP_A = Fingerprint.of("request-A".getBytes(StandardCharsets.UTF_8));
  static final Fingerprint FP_B = Fingerprint.of("request-B".getBytes(StandardCharsets.UTF_8));
  static final StoredResponse RESPONSE =
      StoredResponse.of(
          201,
          new LinkedHashMap<>(Map.of("Content-Type", List.of("application/json"))),
          "{\"id\":42}".getBytes(StandardCharsets.UTF_8));

  private static final AtomicInteger KEYS = new AtomicInteger();

  final List<HikariDataSource> pools = new ArrayList<>();
  String url;
  String table;
  HikariDataSource pool;
  CountingDataSource counting;
  JdbcKeyStore store;

  /** A second application instance: its own pool, its own store, the same table. */
  JdbcKeyStore peer;

  abstract TestDatabases db();

  abstract Dialect expectedDialect();

  /** Round trips of a replay (COMPLETE within the window, same fingerprint) in this dialect. */
  abstract int replayRoundTrips();

  @BeforeAll
  void setUp() throws SQLException {
    url = db().url();
    table = "idem_" + db().name().toLowerCase();
    pool = newPool(8);
    dropTables(pool, table, table + "_r", table + "_clock");
    counting = new CountingDataSource(pool);
    store =
        JdbcKeyStore.builder(counting)
            .tableName(table)
            .clockSource(ClockSource.ENGINE)
            .createSchemaIfMissing()
            .build();
    peer =
        JdbcKeyStore.builder(newPool(8)).tableName(table).clockSource(ClockSource.ENGINE).build();
  }

  @AfterAll
  void tearDown() {
    pools.forEach(HikariDataSource::close);
  }

  HikariDataSource newPool(int size) {
    HikariDataSource p = db().pool(url, size);
    pools.add(p);
    return p;
  }

  static void dropTables(DataSource ds, String... tables) throws SQLException {
    for (String t : tables) {
      exec(ds, "DROP TABLE IF EXISTS " + t);
      try {
        exec(ds, "DROP SEQUENCE IF EXISTS " + t + "_fence_seq");
      } catch (SQLException ignored) {
        // MySQL: no sequences
      }
    }
  }

  static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static RecordId newId() {
    return RecordId.of(
        "acct-" + KEYS.incrementAndGet() % 7,
        "key-" + KEYS.incrementAndGet() + "-" + System.nanoTime());
  }

  static ClaimRequest req(RecordId id, Fingerprint fp, Instant now) {
    return new ClaimRequest(id, fp, now, LEASE, WINDOW);
  }

  static ClaimOutcome.Claimed claimed(ClaimOutcome o) {
    assertThat(o).isInstanceOf(ClaimOutcome.Claimed.class);
    return (ClaimOutcome.Claimed) o;
  }

  // ------------------------------------------------------------------------------------------------ claims

  /**
   * Every claim outcome is right, and costs the documented number of round trips (printed for the
   * docs).
   */
  @Test
  void claimOutcomesAndTheirRoundTrips() throws IOException {
    RecordId id = newId();
    Map<String, Integer> rt = new LinkedHashMap<>();
    counting.reset();

    ClaimOutcome.Claimed first = claimed(store.claim(req(id, FP_A, T0)));
    rt.put("fresh", counting.reset());
    assertThat(first.takeover()).isFalse();
    assertThat(first.resumeFrom()).isEmpty();

    ClaimOutcome inFlight = store.claim(req(id, FP_A, T0.plusSeconds(1)));
    rt.put("in flight", counting.reset());
    assertThat(inFlight).isEqualTo(new ClaimOutcome.InFlight(Duration.ofSeconds(29)));

    ClaimOutcome mismatch = store.claim(req(id, FP_B, T0.plusSeconds(1)));
    rt.put("mismatch (in flight)", counting.reset());
    assertThat(mismatch).isEqualTo(new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT));
    assertThat(store.claim(req(id, FP_B, T0.plusSeconds(40))))
        .as("mismatch even with an expired lease")
        .isEqualTo(new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT));
    counting.reset();

    ClaimOutcome.Claimed takeover = claimed(store.claim(req(id, FP_A, T0.plusSeconds(30))));
    rt.put("takeover", counting.reset());
    assertThat(takeover.takeover()).isTrue();
    assertThat(takeover.fence()).isGreaterThan(first.fence());
    assertThat(takeover.resumeFrom()).isEmpty();

    RecoveryPoint point =
        RecoveryPoint.of("charge-requested", "ch_123".getBytes(StandardCharsets.UTF_8));
    store.checkpoint(id, takeover.fence(), point, T0.plusSeconds(31), LEASE);
    counting.reset();
    ClaimOutcome.Claimed resumed = claimed(store.claim(req(id, FP_A, T0.plusSeconds(61))));
    rt.put("takeover with recovery point", counting.reset());
    assertThat(resumed.takeover()).isTrue();
    assertThat(resumed.resumeFrom()).contains(point);
    assertThat(resumed.fence()).isGreaterThan(takeover.fence());

    store.complete(id, resumed.fence(), RESPONSE, T0.plusSeconds(62));
    counting.reset();
    ClaimOutcome replay = store.claim(req(id, FP_A, T0.plusSeconds(63)));
    rt.put("replay", counting.reset());
    assertThat(replay).isInstanceOf(ClaimOutcome.Completed.class);
    assertThat(((ClaimOutcome.Completed) replay).response()).isEqualTo(RESPONSE);
    assertThat(((ClaimOutcome.Completed) replay).completedAt()).isEqualTo(T0.plusSeconds(62));

    ClaimOutcome mismatchComplete = store.claim(req(id, FP_B, T0.plusSeconds(63)));
    rt.put("mismatch (complete)", counting.reset());
    assertThat(mismatchComplete).isEqualTo(new ClaimOutcome.Mismatch(KeyState.COMPLETE));

    Instant pastWindow = T0.plusSeconds(62).plus(WINDOW);
    ClaimOutcome.Claimed reused = claimed(store.claim(req(id, FP_B, pastWindow)));
    rt.put("fresh after the window", counting.reset());
    assertThat(reused.takeover()).isFalse();
    assertThat(reused.resumeFrom()).as("a reused key past the window is a new request").isEmpty();
    assertThat(reused.fence()).isGreaterThan(resumed.fence());
    assertThat(store.claim(req(id, FP_B, pastWindow.minusNanos(1).plus(LEASE))))
        .isEqualTo(new ClaimOutcome.InFlight(Duration.ofNanos(1)));
    counting.reset();

    String report = db() + ": " + rt;
    System.out.println("round trips per claim outcome, " + report);
    Path out = Path.of("target", "round-trips");
    Files.createDirectories(out);
    Files.writeString(out.resolve(db().name() + ".txt"), report + System.lineSeparator());

    assertThat(rt.get("fresh")).isEqualTo(1);
    assertThat(rt.get("in flight")).isEqualTo(1);
    assertThat(rt.get("mismatch (in flight)")).isEqualTo(1);
    assertThat(rt.get("mismatch (complete)")).isEqualTo(1);
    // MySQL/MariaDB read the row a takeover took, for its generation, as they read a replay's
    // response
    assertThat(rt.get("takeover")).isEqualTo(replayRoundTrips());
    assertThat(rt.get("fresh after the window")).isEqualTo(1);
    assertThat(rt.get("replay")).isEqualTo(replayRoundTrips());
    assertThat(rt.get("takeover with recovery point")).isEqualTo(replayRoundTrips());
  }

  /**
   * A stale owner's every write is refused and changes nothing; the fence, not the lease, decides.
   */
  @Test
  void staleFenceWritesAreRefusedAndChangeNothing() {
    RecordId id = newId();
    FenceToken stale = claimed(store.claim(req(id, FP_A, T0))).fence();
    FenceToken current = claimed(store.claim(req(id, FP_A, T0.plus(LEASE)))).fence();
    RecordSnapshot before = store.lookup(id).orElseThrow();
    Instant t = T0.plus(LEASE).plusSeconds(1);

    assertThatThrownBy(() -> store.heartbeat(id, stale, t, LEASE))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("IN_FLIGHT with " + current);
    assertThatThrownBy(() -> store.checkpoint(id, stale, RecoveryPoint.of("x"), t, LEASE))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store.complete(id, stale, RESPONSE, t))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> store.release(id, stale, t)).isInstanceOf(LeaseLostException.class);
    assertThat(store.lookup(id)).contains(before);

    // the current owner may still write after its lease expired, as long as nobody took over
    Instant late = T0.plus(LEASE).plus(LEASE).plusSeconds(5);
    store.heartbeat(id, current, late, LEASE);
    store.heartbeat(
        id, current, late,
        LEASE); // the same values again: still one row written, under either MySQL count
    assertThat(store.lookup(id).orElseThrow().leaseExpiresAt()).contains(late.plus(LEASE));
    store.complete(id, current, RESPONSE, late);
    assertThatThrownBy(() -> store.complete(id, current, RESPONSE, late))
        .as("complete is not in flight")
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("COMPLETE");
    assertThatThrownBy(() -> store.release(id, current, late))
        .isInstanceOf(LeaseLostException.class);
    assertThat(store.lookup(id).orElseThrow().response()).contains(RESPONSE);
  }

  /**
   * Every new claim of a key gets a larger fence: after a release, after the window, after a purge.
   */
  @Test
  void fencesIncreaseAcrossReleaseWindowAndPurge() throws SQLException {
    String t = table + "_r";
    dropTables(pool, t);
    JdbcKeyStore own =
        JdbcKeyStore.builder(pool)
            .tableName(t)
            .clockSource(ClockSource.ENGINE)
            .createSchemaIfMissing()
            .build();
    RecordId id = newId();
    FenceToken f1 = claimed(own.claim(req(id, FP_A, T0))).fence();
    own.release(id, f1, T0.plusSeconds(1));
    assertThat(own.lookup(id)).as("released counts as absent").isEmpty();
    ClaimOutcome.Claimed c2 = claimed(own.claim(req(id, FP_B, T0.plusSeconds(2))));
    assertThat(c2.fence()).isGreaterThan(f1);
    assertThat(c2.takeover()).isFalse();
    own.complete(id, c2.fence(), RESPONSE, T0.plusSeconds(3));
    FenceToken f3 = claimed(own.claim(req(id, FP_A, T0.plusSeconds(3).plus(WINDOW)))).fence();
    assertThat(f3).isGreaterThan(c2.fence());
    own.complete(id, f3, RESPONSE, T0.plusSeconds(4).plus(WINDOW));
    assertThat(own.deleteExpired(T0.plus(Duration.ofDays(10)), Duration.ofDays(3), 100))
        .isEqualTo(1);
    assertThat(own.lookup(id)).isEmpty();
    FenceToken f4 = claimed(own.claim(req(id, FP_A, T0.plus(Duration.ofDays(11))))).fence();
    assertThat(f4).as("after a purge").isGreaterThan(f3);
    dropTables(pool, t);
  }

  /**
   * deleteExpired deletes bounded batches of what is past retention, never a live record;
   * findAbandoned finds expired leases oldest first.
   */
  @Test
  void retentionInBoundedBatchesAndAbandonedLeases() throws SQLException {
    String t = table + "_r";
    dropTables(pool, t);
    JdbcKeyStore own =
        JdbcKeyStore.builder(pool)
            .tableName(t)
            .clockSource(ClockSource.ENGINE)
            .createSchemaIfMissing()
            .build();
    for (int i = 0; i < 25; i++) {
      RecordId id = newId();
      FenceToken f = claimed(own.claim(req(id, FP_A, T0))).fence();
      own.complete(id, f, RESPONSE, T0.plusSeconds(i));
    }
    List<RecordId> abandoned = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      RecordId id = newId();
      claimed(own.claim(new ClaimRequest(id, FP_A, T0.plusSeconds(10 - i), LEASE, WINDOW)));
      abandoned.add(0, id);
    }
    RecordId live = newId();
    claimed(own.claim(new ClaimRequest(live, FP_A, T0, Duration.ofDays(30), WINDOW)));

    assertThat(own.findAbandoned(T0.plusSeconds(39), 10))
        .extracting(RecordSnapshot::id)
        .containsExactly(abandoned.get(0), abandoned.get(1));
    assertThat(own.findAbandoned(T0.plus(Duration.ofDays(1)), 2))
        .extracting(RecordSnapshot::id)
        .containsExactly(abandoned.get(0), abandoned.get(1));

    Instant later = T0.plus(Duration.ofDays(4));
    assertThat(
            own.deleteExpired(T0.plusSeconds(5).plus(Duration.ofDays(3)), Duration.ofDays(3), 100))
        .as("only what is past retention")
        .isEqualTo(6);
    assertThat(own.deleteExpired(later, Duration.ofDays(3), 10)).isEqualTo(10);
    assertThat(own.deleteExpired(later, Duration.ofDays(3), 10)).isEqualTo(10);
    assertThat(own.deleteExpired(later, Duration.ofDays(3), 10)).isEqualTo(2);
    assertThat(own.deleteExpired(later, Duration.ofDays(3), 10)).isEqualTo(0);
    assertThat(own.lookup(live)).as("a live lease is never deleted").isPresent();
    dropTables(pool, t);
  }

  // ------------------------------------------------------------------------------------------------ races

  /**
   * 24 concurrent claims of one key from three pools (three application instances): exactly one
   * wins, the rest see it in flight; then, once the lease expired, exactly one takes it over.
   * Repeated over many keys.
   */
  @Test
  void concurrentClaimsAcrossPoolsHaveExactlyOneWinner() throws Exception {
    List<JdbcKeyStore> instances =
        List.of(
            store,
            peer,
            JdbcKeyStore.builder(newPool(8))
                .tableName(table)
                .clockSource(ClockSource.ENGINE)
                .build());
    int threads = 24;
    ExecutorService exec = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 25; round++) {
        RecordId id = newId();
        List<ClaimOutcome> fresh = race(exec, threads, instances, req(id, FP_A, T0));
        assertThat(fresh)
            .filteredOn(ClaimOutcome.Claimed.class::isInstance)
            .as("winners of %s", id)
            .hasSize(1);
        assertThat(fresh)
            .filteredOn(o -> !(o instanceof ClaimOutcome.Claimed))
            .allMatch(ClaimOutcome.InFlight.class::isInstance);
        FenceToken first =
            ((ClaimOutcome.Claimed)
                    fresh.stream()
                        .filter(ClaimOutcome.Claimed.class::isInstance)
                        .findFirst()
                        .orElseThrow())
                .fence();

        List<ClaimOutcome> takeovers =
            race(exec, threads, instances, req(id, FP_A, T0.plus(LEASE).plusSeconds(1)));
        List<ClaimOutcome> won =
            takeovers.stream().filter(ClaimOutcome.Claimed.class::isInstance).toList();
        assertThat(won).as("takeovers of %s", id).hasSize(1);
        assertThat(((ClaimOutcome.Claimed) won.get(0)).takeover()).isTrue();
        assertThat(((ClaimOutcome.Claimed) won.get(0)).fence()).isGreaterThan(first);
      }
    } finally {
      exec.shutdownNow();
      assertThat(exec.awaitTermination(10, TimeUnit.SECONDS))
          .as("the racing claims' threads ended")
          .isTrue();
    }
  }

  private static List<ClaimOutcome> race(
      ExecutorService exec, int threads, List<JdbcKeyStore> instances, ClaimRequest request)
      throws Exception {
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<ClaimOutcome>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      JdbcKeyStore s = instances.get(i % instances.size());
      futures.add(
          exec.submit(
              () -> {
                ready.countDown();
                go.await();
                return s.claim(request);
              }));
    }
    ready.await(10, TimeUnit.SECONDS);
    go.countDown();
    List<ClaimOutcome> out = new ArrayList<>();
    for (Future<ClaimOutcome> f : futures) {
      out.add(f.get(30, TimeUnit.SECONDS));
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------------ clock, start-up

  /** With the database clock, short real leases expire by it, and the engine's now is ignored. */
  @Test
  void databaseClockJudgesLeasesAndWindows() throws Exception {
    String t = table + "_clock";
    String probes = table + "_probe";
    dropTables(pool, t, probes);
    JdbcKeyStore a = JdbcKeyStore.builder(pool).tableName(t).createSchemaIfMissing().build();
    JdbcKeyStore b = JdbcKeyStore.builder(newPool(2)).tableName(t).build();
    JdbcKeyStore probe =
        JdbcKeyStore.builder(pool).tableName(probes).createSchemaIfMissing().build();
    assertThat(a.capabilities())
        .contains(
            StoreCapability.SERVER_CLOCK, StoreCapability.SHARED, StoreCapability.TRANSACTIONAL);
    Instant farFuture = Instant.parse("2199-01-01T00:00:00Z");
    Duration lease = Duration.ofMillis(600);
    Duration window = Duration.ofMillis(600);
    RecordId id = newId();

    ClaimOutcome.Claimed first =
        claimed(a.claim(new ClaimRequest(id, FP_A, Instant.EPOCH, lease, window)));
    ClaimOutcome busy = b.claim(new ClaimRequest(id, FP_A, farFuture, lease, window));
    assertThat(busy)
        .as("a far-future engine time does not expire the lease")
        .isInstanceOf(ClaimOutcome.InFlight.class);
    assertThat(((ClaimOutcome.InFlight) busy).leaseRemaining()).isBetween(Duration.ZERO, lease);
    Instant leaseEnd = a.lookup(id).orElseThrow().leaseExpiresAt().orElseThrow();
    assertThat(leaseEnd).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));

    awaitDatabaseTimePassed(probe, lease, "the first claim's lease");
    ClaimOutcome.Claimed second =
        claimed(b.claim(new ClaimRequest(id, FP_A, Instant.EPOCH, lease, window)));
    assertThat(second.takeover()).isTrue();
    assertThatThrownBy(() -> a.heartbeat(id, first.fence(), farFuture, lease))
        .isInstanceOf(LeaseLostException.class);
    b.complete(id, second.fence(), RESPONSE, Instant.EPOCH);
    assertThat(a.claim(new ClaimRequest(id, FP_A, farFuture, lease, window)))
        .isInstanceOf(ClaimOutcome.Completed.class);
    assertThat(a.deleteExpired(farFuture, Duration.ofMinutes(5), 10))
        .as("retention by the database clock")
        .isZero();

    awaitDatabaseTimePassed(probe, window, "the completed record's replay window");
    ClaimOutcome.Claimed third =
        claimed(a.claim(new ClaimRequest(id, FP_B, Instant.EPOCH, lease, window)));
    assertThat(third.takeover()).isFalse();
    assertThat(a.findAbandoned(Instant.EPOCH, 10)).isEmpty();
    awaitDatabaseTimePassed(probe, lease, "the third claim's lease");
    assertThat(a.findAbandoned(Instant.EPOCH, 10))
        .extracting(RecordSnapshot::id)
        .containsExactly(id);
    Duration retention = Duration.ofMillis(50);
    awaitDatabaseTimePassed(probe, retention, "the retention after the third claim's lease");
    assertThat(a.deleteExpired(Instant.EPOCH, retention, 10))
        .as(
            "the abandoned record once the retention after its"
                + " lease passed by the database clock")
        .isEqualTo(1);
    dropTables(pool, t, probes);
  }

  /**
   * Returns once {@code span} has passed by the database's clock since this call, which is after
   * the event it follows: a probe record claimed now with {@code span} as its lease shows up in
   * {@code findAbandoned} exactly then. The signal is the database's own judgement of time, so a
   * slow or skewed test machine cannot make the next check come early.
   */
  private static void awaitDatabaseTimePassed(JdbcKeyStore probe, Duration span, String what)
      throws Exception {
    RecordId id = newId();
    probe.claim(new ClaimRequest(id, FP_A, Instant.EPOCH, span, span));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (probe.findAbandoned(Instant.EPOCH, 1000).stream().noneMatch(r -> r.id().equals(id))) {
      assertThat(System.nanoTime())
          .as("%s (%s) had not passed by the database clock after 10 s", what, span)
          .isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(10); // polling interval, not a margin
    }
  }

  /** The builder finds the dialect from the connection's metadata. */
  @Test
  void detectsTheDialect() {
    assertThat(store.dialect()).isEqualTo(expectedDialect());
    assertThat(store.capabilities())
        .containsExactlyInAnyOrder(StoreCapability.SHARED, StoreCapability.TRANSACTIONAL);
  }

  /**
   * A missing table fails the start-up with a message that says what is missing and how to fix it.
   */
  @Test
  void missingSchemaSaysWhatAndHowToFix() {
    assertThatThrownBy(() -> JdbcKeyStore.builder(pool).tableName("idem_no_such_table").build())
        .isExactlyInstanceOf(KeyStoreException.class)
        .hasMessageContaining("idem_no_such_table")
        .hasMessageContaining("V1__idempotency_records.sql")
        .hasMessageContaining("createSchemaIfMissing()");
  }

  /**
   * A store statement that waits on a row lock held by a stalled transaction ends after
   * statementTimeout with StoreUnavailableException, and changes nothing. Without the timeout the
   * heartbeat would wait for the lock with no end on PostgreSQL and for 50 s on MariaDB; the
   * preemptive 30 s bound turns such a hang into a failure.
   */
  @Test
  void statementWaitingOnALockedRowTimesOutAsStoreUnavailable() throws SQLException {
    JdbcKeyStore quick =
        JdbcKeyStore.builder(pool)
            .tableName(table)
            .clockSource(ClockSource.ENGINE)
            .statementTimeout(Duration.ofSeconds(1))
            .build();
    RecordId id = newId();
    ClaimOutcome.Claimed c = claimed(quick.claim(req(id, FP_A, T0)));
    RecordSnapshot before = quick.lookup(id).orElseThrow();
    try (Connection stalled = pool.getConnection()) {
      stalled.setAutoCommit(false);
      try (PreparedStatement ps =
          stalled.prepareStatement(
              "SELECT fence FROM " + table + " WHERE scope = ? AND idem_key = ? FOR UPDATE")) {
        ps.setString(1, id.scope().value());
        ps.setString(2, id.key().value());
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("the stalled transaction locked the row").isTrue();
        }
      }
      org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
          Duration.ofSeconds(30),
          () ->
              assertThatThrownBy(() -> quick.heartbeat(id, c.fence(), T0.plusSeconds(1), LEASE))
                  .as(
                      "a heartbeat blocked by another transaction's row lock, with statementTimeout 1 s")
                  .isInstanceOf(StoreUnavailableException.class)
                  .hasMessageContaining("heartbeat"));
      stalled.rollback();
    }
    assertThat(quick.lookup(id)).as("the record after the timed-out heartbeat").contains(before);
    quick.heartbeat(
        id, c.fence(), T0.plusSeconds(2), LEASE); // and the owner's next heartbeat goes through
  }

  /** statementTimeout is validated when set, naming the setting: JDBC counts whole seconds. */
  @Test
  void statementTimeoutMustBeWholeSeconds() {
    assertThatThrownBy(() -> JdbcKeyStore.builder(pool).statementTimeout(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("statementTimeout")
        .hasMessageContaining("whole number of seconds");
    assertThatThrownBy(() -> JdbcKeyStore.builder(pool).statementTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("statementTimeout");
  }

  /** Lookups of unknown records are empty. */
  @Test
  void lookupOfUnknownRecordIsEmpty() {
    assertThat(store.lookup(newId())).isEqualTo(Optional.empty());
  }
}
