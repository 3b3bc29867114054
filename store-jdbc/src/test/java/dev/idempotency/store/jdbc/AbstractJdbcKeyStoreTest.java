package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.testing.TestDatabases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What is particular to the JDBC store, run against each database by a subclass of a few lines: the
 * round trips of each claim outcome, row counts that see no change, statement timeouts, and
 * start-up errors. The SPI's rules (fences, time, retention, races across instances, the database
 * clock) are the TCK's to test ({@link JdbcKeyStoreContract}), and so is the transaction of {@code
 * inPhase} and {@code completeWith} ({@link JdbcTransactionalKeyStoreContract}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcKeyStoreTest {
  /**
   * This test JVM, in table names that several JVMs could otherwise share: the suites run in two
   * forks at once (the module's failsafe forkCount), over the same database servers.
   */
  static final String JVM = Long.toString(ProcessHandle.current().pid(), 36);

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

  abstract TestDatabases db();

  abstract Dialect expectedDialect();

  /**
   * Round trips of a claim that wins (fresh or takeover) in this dialect: the read that finds no
   * record or a claimable one, and the statement that claims it; more on H2.
   */
  int wonClaimRoundTrips() {
    return 2;
  }

  /** Round trips of a takeover: as a won claim, but for MySQL's statement, which reads the row. */
  int takeoverRoundTrips() {
    return wonClaimRoundTrips();
  }

  /** Round trips every claim adds in this dialect, whatever its outcome: none but on H2. */
  int claimOverhead() {
    return 0;
  }

  @BeforeAll
  void setUp() throws SQLException {
    url = db().url();
    table = "idem_" + db().name().toLowerCase();
    pool = newPool(8);
    dropTables(pool, table);
    counting = new CountingDataSource(pool);
    store =
        configure(JdbcKeyStore.builder(counting))
            .tableName(table)
            .clockSource(ClockSource.ENGINE)
            .createSchemaIfMissing()
            .build();
  }

  /** The store's settings beyond table and clock: a subclass may add one (none by default). */
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder;
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

    int o = claimOverhead();
    assertThat(rt.get("fresh")).isEqualTo(wonClaimRoundTrips() + o);
    // a claim that cannot win is answered by its read alone, in every dialect
    assertThat(rt.get("in flight")).isEqualTo(1 + o);
    assertThat(rt.get("mismatch (in flight)")).isEqualTo(1 + o);
    assertThat(rt.get("mismatch (complete)")).isEqualTo(1 + o);
    assertThat(rt.get("replay")).isEqualTo(1 + o);
    assertThat(rt.get("takeover")).isEqualTo(takeoverRoundTrips() + o);
    assertThat(rt.get("fresh after the window")).isEqualTo(wonClaimRoundTrips() + o);
    assertThat(rt.get("takeover with recovery point")).isEqualTo(takeoverRoundTrips() + o);
  }

  /**
   * A replay, a mismatch and an in-flight answer leave the row as it was, every column: no write to
   * log, lock longer or replicate for a request that changes nothing.
   */
  @Test
  void aClaimThatDoesNotWinWritesNothing() throws SQLException {
    RecordId busy = newId();
    claimed(store.claim(req(busy, FP_A, T0)));
    RecordId done = newId();
    store.complete(done, claimed(store.claim(req(done, FP_A, T0))).fence(), RESPONSE, T0);
    List<String> busyRow = row(busy);
    List<String> doneRow = row(done);

    assertThat(store.claim(req(busy, FP_A, T0.plusSeconds(1))))
        .isInstanceOf(ClaimOutcome.InFlight.class);
    assertThat(store.claim(req(busy, FP_B, T0.plusSeconds(1))))
        .isInstanceOf(ClaimOutcome.Mismatch.class);
    assertThat(store.claim(req(done, FP_A, T0.plusSeconds(1))))
        .isInstanceOf(ClaimOutcome.Completed.class);
    assertThat(store.claim(req(done, FP_B, T0.plusSeconds(1))))
        .isInstanceOf(ClaimOutcome.Mismatch.class);

    assertThat(row(busy)).as("the in-flight row after losing claims").isEqualTo(busyRow);
    assertThat(row(done)).as("the completed row after a replay").isEqualTo(doneRow);
  }

  /** Every column of the record's row, as text (bytes in hex). */
  private List<String> row(RecordId id) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT * FROM " + table + " WHERE scope = ? AND idem_key = ?")) {
      ps.setString(1, id.scope().value());
      ps.setString(2, id.key().value());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("the row of %s", id).isTrue();
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          Object v = rs.getObject(i);
          if (v instanceof Blob blob) { // its toString names the read, not the value
            v = blob.getBytes(1, (int) blob.length());
          }
          values.add(v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v));
        }
        return values;
      }
    }
  }

  /**
   * A write that changes no column still counts as done. MySQL and MariaDB report changed rows, not
   * matched rows, unless the driver asks otherwise: a heartbeat repeating the same lease, in the
   * same millisecond, must not be mistaken for a lost one. The rules themselves (fences, time,
   * retention, races across instances) are the TCK's ({@link JdbcKeyStoreContract}).
   */
  @Test
  void aWriteThatChangesNoColumnIsNotALostLease() {
    RecordId id = newId();
    FenceToken fence = claimed(store.claim(req(id, FP_A, T0))).fence();
    Instant t = T0.plusSeconds(1);
    store.heartbeat(id, fence, t, LEASE);
    store.heartbeat(id, fence, t, LEASE);
    assertThat(store.lookup(id).orElseThrow().leaseExpiresAt()).contains(t.plus(LEASE));
    store.complete(id, fence, RESPONSE, t);
    assertThatThrownBy(() -> store.complete(id, fence, RESPONSE, t))
        .as("a completed record is not in flight, whatever the row count says")
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("COMPLETE");
  }

  /**
   * A renewal never moves a lease's end back: one that waited (for a connection, say) while a later
   * write of the owner committed carries an earlier {@code now}, and must leave the later end as it
   * is, and still count as renewed. Both the batch of one lease and that of many (more than one
   * statement's worth on every dialect) are checked.
   */
  @Test
  void aLateRenewalDoesNotShortenTheLease() {
    List<RecordId> ids = new ArrayList<>();
    Map<RecordId, FenceToken> leases = new LinkedHashMap<>();
    for (int i = 0; i < 4100; i++) {
      RecordId id = newId();
      ids.add(id);
      leases.put(id, claimed(store.claim(req(id, FP_A, T0))).fence());
    }
    RecordId first = ids.get(0);
    Instant later = T0.plusSeconds(20);
    Instant earlier = T0.plusSeconds(5);
    assertThat(store.heartbeatAll(Map.of(first, leases.get(first)), later, LEASE)).isEmpty();
    assertThat(store.heartbeatAll(Map.of(first, leases.get(first)), earlier, LEASE))
        .as("a late renewal of a live lease is not a refusal")
        .isEmpty();
    assertThat(store.lookup(first).orElseThrow().leaseExpiresAt())
        .as("the lease end after a renewal with an earlier now")
        .contains(later.plus(LEASE));

    assertThat(store.heartbeatAll(leases, later, LEASE)).isEmpty();
    assertThat(store.heartbeatAll(leases, earlier, LEASE)).isEmpty();
    for (RecordId id : List.of(ids.get(1), ids.get(2048), ids.get(4099))) {
      assertThat(store.lookup(id).orElseThrow().leaseExpiresAt())
          .as("the lease end of %s after a batch renewal with an earlier now", id)
          .contains(later.plus(LEASE));
    }
    // and a lease that did not end later is renewed to the batch's now + lease
    assertThat(store.heartbeatAll(leases, later.plusSeconds(1), LEASE)).isEmpty();
    assertThat(store.lookup(ids.get(4099)).orElseThrow().leaseExpiresAt())
        .contains(later.plusSeconds(1).plus(LEASE));
  }

  // ------------------------------------------------------------------------------------------------ start-up

  /** The builder finds the dialect from the connection's metadata. */
  @Test
  void detectsTheDialect() {
    assertThat(store.dialect()).isEqualTo(expectedDialect());
    assertThat(store.capabilities())
        .containsExactlyInAnyOrder(
            StoreCapability.SHARED,
            StoreCapability.TRANSACTIONAL,
            StoreCapability.ONE_TRANSACTION,
            StoreCapability.LISTING,
            StoreCapability.EXTEND_RETENTION);
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

  /**
   * The statement that completes with a response is given a second per MiB begun beyond the
   * statement timeout (5 s by default), for sending it: the timeout bounds waiting, and a driver
   * counts the sending in it. A small response gets one second more, and no other statement any.
   */
  @Test
  void aCompletionCarryingAResponseIsGivenASecondPerMiBToSendIt() {
    Assumptions.assumeFalse(
        expectedDialect() == Dialect.H2,
        "H2 sets no query timeout (its LOCK_TIMEOUT bounds waits)");
    RecordId id = newId();
    ClaimOutcome.Claimed c = claimed(store.claim(req(id, FP_A, T0)));
    counting.reset();
    store.complete(id, c.fence(), StoredResponse.of(200, Map.of(), new byte[(2 << 20) + 1]), T0);
    assertThat(counting.queryTimeouts())
        .as("the completion with 2 MiB and 1 byte: 5 s and 3 s to send them")
        .contains(8)
        .allSatisfy(t -> assertThat(t).isIn(5, 8));

    RecordId other = newId();
    counting.reset();
    ClaimOutcome.Claimed d = claimed(store.claim(req(other, FP_A, T0)));
    assertThat(counting.queryTimeouts()).as("a claim's statements").containsOnly(5);
    counting.reset();
    store.complete(other, d.fence(), RESPONSE, T0);
    assertThat(counting.queryTimeouts())
        .as("the completion with a response of a few bytes")
        .contains(6)
        .allSatisfy(t -> assertThat(t).isIn(5, 6));
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
