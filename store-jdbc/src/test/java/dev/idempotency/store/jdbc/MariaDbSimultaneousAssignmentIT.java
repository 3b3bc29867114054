package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MySQL claim on MariaDB sessions whose {@code sql_mode} has {@code SIMULTANEOUS_ASSIGNMENT}
 * (also implied by {@code sql_mode=ORACLE}): every {@code ON DUPLICATE KEY UPDATE} assignment then
 * sees the old row, not the columns assigned before it. The mode is set per connection through the
 * driver's {@code sessionVariables}, as a pool would, with both drivers.
 */
class MariaDbSimultaneousAssignmentIT {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Fingerprint FP = Fingerprint.of("request".getBytes(StandardCharsets.UTF_8));
  private static final Fingerprint OTHER = Fingerprint.of("other".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse RESPONSE = StoredResponse.ofUtf8(201, "done");
  private static final int THREADS = 16;
  private static final String ORACLE = "sessionVariables=sql_mode=ORACLE";

  static List<Arguments> sessions() {
    return List.of(
        Arguments.of(TestDatabases.MARIADB_SA_CONNECTOR_J, ""),
        Arguments.of(TestDatabases.MARIADB_SA_DRIVER, ""),
        Arguments.of(TestDatabases.MARIADB_CONNECTOR_J, ORACLE),
        Arguments.of(TestDatabases.MARIADB_DRIVER, ORACLE));
  }

  /**
   * A released key, an expired lease and a key past its replay window, each claimed by 16
   * concurrent retries through three pools: exactly one claim wins each time, its fence is the
   * record's, and the winner can complete.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("sessions")
  @Timeout(120)
  void concurrentRetriesOfAClaimableKeyHaveExactlyOneWinner(TestDatabases db, String params)
      throws Exception {
    String base = db.url();
    String url = params.isEmpty() ? base : base + (base.contains("?") ? "&" : "?") + params;
    String table = "idem_sa_" + db.ordinal() + (params.isEmpty() ? "" : "_oracle");
    List<HikariDataSource> pools = List.of(db.pool(url, 6), db.pool(url, 6), db.pool(url, 6));
    ExecutorService exec = Executors.newFixedThreadPool(THREADS);
    try {
      assertThat(sqlMode(pools.get(0)))
          .as("the session's sql_mode: is sessionVariables applied by %s?", db)
          .contains("SIMULTANEOUS_ASSIGNMENT");
      AbstractJdbcKeyStoreTest.dropTables(pools.get(0), table);
      List<JdbcKeyStore> stores = new ArrayList<>();
      stores.add(
          JdbcKeyStore.builder(pools.get(0))
              .tableName(table)
              .clockSource(ClockSource.ENGINE)
              .createSchemaIfMissing()
              .build());
      stores.add(
          JdbcKeyStore.builder(pools.get(1))
              .tableName(table)
              .clockSource(ClockSource.ENGINE)
              .build());
      stores.add(
          JdbcKeyStore.builder(pools.get(2))
              .tableName(table)
              .clockSource(ClockSource.ENGINE)
              .build());
      JdbcKeyStore store = stores.get(0);

      for (int round = 0; round < 5; round++) {
        RecordId released = RecordId.of("acct", "released-" + round);
        FenceToken f0 =
            win(
                race(exec, stores, new ClaimRequest(released, FP, T0, LEASE, WINDOW)),
                "fresh claims");
        store.release(released, f0, T0);
        FenceToken f1 =
            win(
                race(
                    exec, stores, new ClaimRequest(released, FP, T0.plusSeconds(1), LEASE, WINDOW)),
                "retries of a released key");
        assertThat(f1).isGreaterThan(f0);
        completeAndCheck(store, released, FP, f1, T0.plusSeconds(2));

        RecordId expired = RecordId.of("acct", "expired-" + round);
        FenceToken g0 =
            win(
                race(exec, stores, new ClaimRequest(expired, FP, T0, LEASE, WINDOW)),
                "fresh claims");
        store.checkpoint(expired, g0, RecoveryPoint.of("charged"), T0, LEASE);
        Instant later = T0.plus(LEASE).plusSeconds(1);
        List<ClaimOutcome> takeovers =
            race(exec, stores, new ClaimRequest(expired, FP, later, LEASE, WINDOW));
        FenceToken g1 = win(takeovers, "takeovers of an expired lease");
        assertThat(takeovers)
            .filteredOn(ClaimOutcome.Claimed.class::isInstance)
            .singleElement()
            .satisfies(
                o ->
                    assertThat(((ClaimOutcome.Claimed) o).resumeFrom())
                        .map(RecoveryPoint::name)
                        .as("the recovery point survives the takeover")
                        .contains("charged"));
        assertThat(g1).isGreaterThan(g0);
        completeAndCheck(store, expired, FP, g1, later);

        Instant pastWindow = later.plus(WINDOW);
        FenceToken g2 =
            win(
                race(exec, stores, new ClaimRequest(expired, OTHER, pastWindow, LEASE, WINDOW)),
                "claims of a key past its replay window");
        assertThat(g2).isGreaterThan(g1);
        assertThat(store.lookup(expired).orElseThrow().recoveryPoint())
            .as("a fresh claim clears the recovery point")
            .isEmpty();
        completeAndCheck(store, expired, OTHER, g2, pastWindow);
      }
      AbstractJdbcKeyStoreTest.dropTables(pools.get(0), table);
    } finally {
      exec.shutdownNow();
      pools.forEach(HikariDataSource::close);
    }
  }

  private static FenceToken win(List<ClaimOutcome> outcomes, String what) {
    List<ClaimOutcome> won =
        outcomes.stream().filter(ClaimOutcome.Claimed.class::isInstance).toList();
    assertThat(won)
        .as(
            "winners among %d concurrent %s (more than one: the claim statement reported a claim it did "
                + "not write; check the ON DUPLICATE KEY UPDATE assignments under SIMULTANEOUS_ASSIGNMENT)",
            THREADS, what)
        .hasSize(1);
    assertThat(outcomes)
        .as("the losers of %s", what)
        .filteredOn(o -> !(o instanceof ClaimOutcome.Claimed))
        .allMatch(ClaimOutcome.InFlight.class::isInstance);
    return ((ClaimOutcome.Claimed) won.get(0)).fence();
  }

  private static void completeAndCheck(
      JdbcKeyStore store, RecordId id, Fingerprint fp, FenceToken fence, Instant now) {
    assertThat(store.lookup(id))
        .as("the row the winner claimed")
        .hasValueSatisfying(
            s -> {
              assertThat(s.state()).isEqualTo(KeyState.IN_FLIGHT);
              assertThat(s.fence()).isEqualTo(fence);
            });
    store.complete(id, fence, RESPONSE, now);
    assertThat(store.claim(new ClaimRequest(id, fp, now, LEASE, WINDOW)))
        .as("a retry after completion")
        .isInstanceOf(ClaimOutcome.Completed.class);
  }

  private static List<ClaimOutcome> race(
      ExecutorService exec, List<JdbcKeyStore> stores, ClaimRequest request) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<ClaimOutcome>> futures = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      JdbcKeyStore s = stores.get(i % stores.size());
      futures.add(
          exec.submit(
              () -> {
                go.await();
                return s.claim(request);
              }));
    }
    go.countDown();
    List<ClaimOutcome> out = new ArrayList<>();
    for (Future<ClaimOutcome> f : futures) {
      out.add(f.get(30, TimeUnit.SECONDS));
    }
    return out;
  }

  private static String sqlMode(HikariDataSource pool) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@sql_mode")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
