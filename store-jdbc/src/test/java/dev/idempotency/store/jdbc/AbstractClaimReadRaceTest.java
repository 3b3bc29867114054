package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.testing.TestDatabases;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A claim opens with one plain read of the record and, only when that read finds no record or a
 * claimable one, sends the statement that arbitrates. Each test here changes the record from
 * another connection exactly between the two ({@link CountingDataSource#afterClaimRead}) and checks
 * that the statement, not the read, decides: a record written meanwhile is answered as it now is, a
 * lease taken over meanwhile is not taken twice, a record deleted meanwhile is claimed fresh. The
 * last test does so inside the claim's own transaction at {@code REPEATABLE READ}, where the read
 * opens the snapshot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractClaimReadRaceTest {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(24);
  private static final Fingerprint FP_A = Fingerprint.of("race-A".getBytes(StandardCharsets.UTF_8));
  private static final Fingerprint FP_B = Fingerprint.of("race-B".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse FIRST =
      StoredResponse.of(
          201, Map.of("X-Run", List.of("first")), "first".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse SECOND =
      StoredResponse.of(
          201, Map.of("X-Run", List.of("second")), "second".getBytes(StandardCharsets.UTF_8));
  private static final AtomicInteger KEYS = new AtomicInteger();

  private final List<HikariDataSource> pools = new ArrayList<>();
  private String url;
  private String table;
  private HikariDataSource pool;
  private CountingDataSource racing;
  private JdbcKeyStore store;

  /** Claims and writes on other connections, between the racing claim's read and statement. */
  private JdbcKeyStore other;

  abstract TestDatabases db();

  /** The store's settings beyond table and clock: a subclass may add one (none by default). */
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder;
  }

  @BeforeAll
  void setUp() throws SQLException {
    url = db().url();
    table = "idem_race_" + db().name().toLowerCase() + "_" + AbstractJdbcKeyStoreTest.JVM;
    pool = newPool(null);
    AbstractJdbcKeyStoreTest.dropTables(pool, table);
    other = storeOver(pool, true);
    racing = new CountingDataSource(pool);
    store = storeOver(racing, false);
  }

  @AfterAll
  void tearDown() throws SQLException {
    if (pool == null) {
      return;
    }
    try {
      AbstractJdbcKeyStoreTest.dropTables(pool, table);
    } finally {
      pools.forEach(HikariDataSource::close);
    }
  }

  private HikariDataSource newPool(String isolation) {
    HikariDataSource p = db().pool(url, 4, isolation);
    pools.add(p);
    return p;
  }

  private JdbcKeyStore storeOver(DataSource ds, boolean create) {
    JdbcKeyStoreBuilder b =
        configure(JdbcKeyStore.builder(ds)).tableName(table).clockSource(ClockSource.ENGINE);
    return (create ? b.createSchemaIfMissing() : b).build();
  }

  private static RecordId newId() {
    return RecordId.of("acct-race", "key-" + KEYS.incrementAndGet() + "-" + System.nanoTime());
  }

  private static ClaimRequest req(RecordId id, Fingerprint fp, Instant now) {
    return new ClaimRequest(id, fp, now, LEASE, WINDOW);
  }

  private static ClaimOutcome.Claimed claimed(ClaimOutcome o) {
    assertThat(o).isInstanceOf(ClaimOutcome.Claimed.class);
    return (ClaimOutcome.Claimed) o;
  }

  /** Claims and completes {@code id} with {@link #FIRST} through the other store. */
  private void completeElsewhere(RecordId id) {
    other.complete(id, claimed(other.claim(req(id, FP_A, T0))).fence(), FIRST, T0);
  }

  private void assertTheInterleavedWriteRan(CountingDataSource source) {
    assertThat(source.interleavePending())
        .as("the other connection's write ran between the claim's read and its statement")
        .isFalse();
  }

  private static void assertReplaysFirst(ClaimOutcome o) {
    assertThat(o).isInstanceOf(ClaimOutcome.Completed.class);
    assertThat(((ClaimOutcome.Completed) o).response()).isEqualTo(FIRST);
  }

  @Test
  void aRecordCompletedAfterTheReadFoundNoneIsReplayed() {
    RecordId id = newId();
    racing.afterClaimRead(() -> completeElsewhere(id));
    ClaimOutcome o = store.claim(req(id, FP_A, T0.plusSeconds(1)));
    assertTheInterleavedWriteRan(racing);
    assertReplaysFirst(o);
  }

  @Test
  void aRecordClaimedAfterTheReadFoundNoneIsInFlight() {
    RecordId id = newId();
    AtomicReference<ClaimOutcome> first = new AtomicReference<>();
    racing.afterClaimRead(() -> first.set(other.claim(req(id, FP_A, T0))));
    ClaimOutcome o = store.claim(req(id, FP_A, T0));
    assertTheInterleavedWriteRan(racing);
    claimed(first.get());
    assertThat(o).isEqualTo(new ClaimOutcome.InFlight(LEASE));
  }

  /**
   * The read sees an expired lease of this request (claimable); another claim takes it over before
   * this one's statement: the takeover is a conditional write on the row as it then is, so the
   * lease is taken once, and the first taker keeps it.
   */
  @Test
  void anExpiredLeaseTakenOverAfterTheReadIsNotTakenTwice() {
    RecordId id = newId();
    FenceToken abandoned = claimed(other.claim(req(id, FP_A, T0))).fence();
    Instant later = T0.plus(LEASE).plusSeconds(1);
    AtomicReference<ClaimOutcome> taker = new AtomicReference<>();
    racing.afterClaimRead(() -> taker.set(other.claim(req(id, FP_A, later))));
    ClaimOutcome o = store.claim(req(id, FP_A, later));
    assertTheInterleavedWriteRan(racing);
    ClaimOutcome.Claimed took = claimed(taker.get());
    assertThat(took.takeover()).isTrue();
    assertThat(took.fence().isNewerThan(abandoned)).isTrue();
    assertThat(o).isEqualTo(new ClaimOutcome.InFlight(LEASE));
    other.complete(id, took.fence(), FIRST, later); // the taker's fence still holds
    assertReplaysFirst(store.claim(req(id, FP_A, later.plusSeconds(1))));
  }

  /**
   * The read sees a released record (claimable), which the reaper, say, deletes before the claim's
   * statement: the claim inserts a fresh record, under a newer fence.
   */
  @Test
  void aRecordDeletedAfterTheReadFoundItClaimableIsClaimedFresh() throws SQLException {
    RecordId id = newId();
    FenceToken released = claimed(other.claim(req(id, FP_A, T0))).fence();
    other.release(id, released, T0);
    racing.afterClaimRead(
        () ->
            AbstractJdbcKeyStoreTest.exec(
                pool, "DELETE FROM " + table + " WHERE idem_key = '" + id.key().value() + "'"));
    ClaimOutcome.Claimed fresh = claimed(store.claim(req(id, FP_B, T0.plusSeconds(1))));
    assertTheInterleavedWriteRan(racing);
    assertThat(fresh.takeover()).isFalse();
    assertThat(fresh.fence().isNewerThan(released)).isTrue();
    store.complete(id, fresh.fence(), SECOND, T0.plusSeconds(2));
    assertThat(store.lookup(id).orElseThrow().response()).contains(SECOND);
  }

  /**
   * At {@code REPEATABLE READ} in a transaction of the claim's own (a pool handing out connections
   * without auto-commit; the one-transaction mode), the read opens the transaction's snapshot. A
   * record completed after it is still answered as complete, by the two-commit claim and by a
   * one-transaction request, which then commits nothing of its own.
   */
  @Test
  void atRepeatableReadARecordCompletedAfterTheReadIsReplayed() throws Exception {
    CountingDataSource inTransactions =
        new CountingDataSource(withoutAutoCommit(newPool("TRANSACTION_REPEATABLE_READ")));
    JdbcKeyStore rr = storeOver(inTransactions, false);

    RecordId id = newId();
    inTransactions.afterClaimRead(() -> completeElsewhere(id));
    ClaimOutcome o = rr.claim(req(id, FP_A, T0.plusSeconds(1)));
    assertTheInterleavedWriteRan(inTransactions);
    assertReplaysFirst(o);

    if (rr.dialect() == Dialect.POSTGRESQL) {
      return; // its one-transaction claim is one statement of its own
      // (PostgresOneTransactionJdbcIT)
    }
    RecordId oneTx = newId();
    inTransactions.afterClaimRead(() -> completeElsewhere(oneTx));
    OneTransactionOutcome outcome =
        rr.claimAndComplete(req(oneTx, FP_A, T0.plusSeconds(1)), (c, claim) -> SECOND);
    assertTheInterleavedWriteRan(inTransactions);
    assertThat(outcome).isInstanceOf(OneTransactionOutcome.NotRun.class);
    assertReplaysFirst(((OneTransactionOutcome.NotRun) outcome).outcome());
    assertThat(store.lookup(oneTx).orElseThrow().response()).contains(FIRST);
  }

  /** {@code ds} with auto-commit switched off on each connection it hands out. */
  private static DataSource withoutAutoCommit(DataSource ds) {
    return (DataSource)
        Proxy.newProxyInstance(
            AbstractClaimReadRaceTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result;
              try {
                result = method.invoke(ds, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              if (result instanceof Connection c) {
                c.setAutoCommit(false);
              }
              return result;
            });
  }
}
