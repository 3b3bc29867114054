package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.store.jdbc.ClockSource;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The PostgreSQL claim's locked variant, which a claim uses once an attempt did not settle (a churn
 * of claims and releases on one key can otherwise make it lose every round). It must decide every
 * case exactly as the first attempt's statement does, and, unlike that statement, decide on the
 * newest row after waiting for its lock. The TCK runs the variant only when races happen to produce
 * it; these tests run it on purpose.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresLockedClaimIT {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Fingerprint FP_A = fingerprint("POST /pay {a}");
  private static final Fingerprint FP_B = fingerprint("POST /pay {b}");
  private static final AtomicInteger KEYS = new AtomicInteger();
  private static final String TABLE = "idem_pg_locked_claim";

  private HikariDataSource pool;
  private JdbcKeyStore store;
  private PostgresDialect dialect;

  @BeforeAll
  void setUp() throws SQLException {
    pool = TestDatabases.POSTGRES.pool(TestDatabases.POSTGRES.url(), 4);
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + TABLE);
    }
    store =
        JdbcKeyStore.builder(pool)
            .tableName(TABLE)
            .clockSource(ClockSource.ENGINE)
            .createSchemaIfMissing()
            .build();
    dialect = new PostgresDialect(Names.of(TABLE), false, 5);
  }

  @AfterAll
  void tearDown() {
    if (pool != null) {
      pool.close();
    }
  }

  @Test
  void lockedClaimDecidesEveryCaseAsTheFirstAttemptDoes() throws SQLException {
    for (boolean locked : new boolean[] {false, true}) {
      String variant = locked ? "locked" : "first-attempt";
      RecordId id = RecordId.of("locked-claim", "k" + KEYS.incrementAndGet());
      Instant t0 = Instant.parse("2026-11-30T06:00:00Z");

      ClaimOutcome fresh = claim(id, FP_A, t0, locked);
      assertThat(fresh)
          .as("%s: the first claim of an absent record", variant)
          .isInstanceOf(ClaimOutcome.Claimed.class);
      FenceToken f1 = ((ClaimOutcome.Claimed) fresh).fence();
      assertThat(((ClaimOutcome.Claimed) fresh).takeover()).isFalse();

      assertThat(claim(id, FP_A, t0.plusSeconds(10), locked))
          .as("%s: the same request while the lease is live", variant)
          .isEqualTo(new ClaimOutcome.InFlight(LEASE.minusSeconds(10)));
      assertThat(claim(id, FP_B, t0.plusSeconds(10), locked))
          .as("%s: another request on the in-flight record", variant)
          .isEqualTo(new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT));

      ClaimOutcome takeover = claim(id, FP_A, t0.plus(LEASE), locked);
      assertThat(takeover)
          .as("%s: the same request once the lease expired", variant)
          .isInstanceOf(ClaimOutcome.Claimed.class);
      FenceToken f2 = ((ClaimOutcome.Claimed) takeover).fence();
      assertThat(((ClaimOutcome.Claimed) takeover).takeover()).isTrue();
      assertThat(f2.isNewerThan(f1))
          .as("%s: the takeover's fence %s after %s", variant, f2, f1)
          .isTrue();

      StoredResponse response =
          StoredResponse.of(
              201,
              new LinkedHashMap<>(Map.of("Content-Type", List.of("application/json"))),
              "{\"paid\":true}".getBytes(StandardCharsets.UTF_8));
      Instant completedAt = t0.plus(LEASE).plusSeconds(1);
      store.complete(id, f2, response, completedAt);
      ClaimOutcome replay = claim(id, FP_A, completedAt.plusSeconds(1), locked);
      assertThat(replay)
          .as("%s: the same request on the completed record", variant)
          .isInstanceOf(ClaimOutcome.Completed.class);
      assertThat(((ClaimOutcome.Completed) replay).response().body()).isEqualTo(response.body());
      assertThat(claim(id, FP_B, completedAt.plusSeconds(1), locked))
          .as("%s: another request on the completed" + " record", variant)
          .isEqualTo(new ClaimOutcome.Mismatch(KeyState.COMPLETE));

      ClaimOutcome afterWindow = claim(id, FP_B, completedAt.plus(WINDOW), locked);
      assertThat(afterWindow)
          .as("%s: any request once the window passed", variant)
          .isInstanceOf(ClaimOutcome.Claimed.class);
      FenceToken f3 = ((ClaimOutcome.Claimed) afterWindow).fence();
      assertThat(f3.isNewerThan(f2)).isTrue();

      store.release(id, f3, completedAt.plus(WINDOW));
      ClaimOutcome afterRelease = claim(id, FP_A, completedAt.plus(WINDOW), locked);
      assertThat(afterRelease)
          .as("%s: a claim of the released record", variant)
          .isInstanceOf(ClaimOutcome.Claimed.class);
      assertThat(((ClaimOutcome.Claimed) afterRelease).fence().isNewerThan(f3)).isTrue();
    }
  }

  /**
   * The reason the variant exists: it waits for the row's lock and decides on the version committed
   * meanwhile, where the first attempt decides at once on its snapshot. A release that commits
   * while both wait is seen by the locked claim only.
   */
  @Test
  void lockedClaimDecidesOnTheRowCommittedWhileItWaited() throws Exception {
    RecordId id = RecordId.of("locked-claim", "k" + KEYS.incrementAndGet());
    Instant t0 = Instant.parse("2026-11-30T07:00:00Z");
    ClaimOutcome.Claimed owner = (ClaimOutcome.Claimed) claim(id, FP_A, t0, false);
    ExecutorService pool2 = Executors.newSingleThreadExecutor();
    try (Connection releaser = pool.getConnection()) {
      releaser.setAutoCommit(false);
      try (PreparedStatement ps =
          releaser.prepareStatement(
              "UPDATE "
                  + TABLE
                  + " SET state = 'R',"
                  + " lease_expires_at_ns = NULL WHERE scope = ? AND idem_key = ? AND fence = ?")) {
        ps.setString(1, id.scope().value());
        ps.setString(2, id.key().value());
        ps.setLong(3, owner.fence().value());
        assertThat(ps.executeUpdate()).isEqualTo(1); // the row is now locked until the commit below
      }
      assertThat(claim(id, FP_A, t0.plusSeconds(1), false))
          .as(
              "the first attempt decides on its snapshot, without"
                  + " waiting for the uncommitted release")
          .isEqualTo(new ClaimOutcome.InFlight(LEASE.minusSeconds(1)));

      int releaserPid = backendPid(releaser);
      Future<ClaimOutcome> waiting = pool2.submit(() -> claim(id, FP_A, t0.plusSeconds(1), true));
      awaitBlockedBy(releaserPid, waiting);
      releaser.commit();
      ClaimOutcome decided = waiting.get(10, TimeUnit.SECONDS);
      assertThat(decided)
          .as("the locked claim after the release it waited for committed")
          .isInstanceOf(ClaimOutcome.Claimed.class);
      assertThat(((ClaimOutcome.Claimed) decided).fence().isNewerThan(owner.fence())).isTrue();
      assertThat(((ClaimOutcome.Claimed) decided).takeover()).isFalse();
    } finally {
      pool2.shutdownNow();
      assertThat(pool2.awaitTermination(10, TimeUnit.SECONDS))
          .as("the locked claim's thread ended")
          .isTrue();
    }
  }

  private static int backendPid(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * Returns once PostgreSQL reports a session waiting for a lock that {@code holderPid} holds
   * ({@code pg_blocking_pids}): the locked claim is blocked on the row, as it must be. Fails if the
   * claim returns first (it did not wait for the lock) or nothing blocks within 10 s.
   */
  private void awaitBlockedBy(int holderPid, Future<ClaimOutcome> waiting) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM"
                    + " pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))")) {
      ps.setInt(1, holderPid);
      while (true) {
        if (waiting.isDone()) {
          throw new AssertionError(
              "the locked claim returned "
                  + waiting.get()
                  + " while another transaction held"
                  + " the row's lock: it must wait for the lock and decide on the row committed meanwhile");
        }
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        assertThat(System.nanoTime())
            .as(
                "no session was blocked by the releaser's lock within 10 s; check that"
                    + " the locked claim locks the row (FOR UPDATE)")
            .isLessThan(deadline);
        TimeUnit.MILLISECONDS.sleep(5); // polling interval, not a margin
      }
    }
  }

  private static Fingerprint fingerprint(String request) {
    try {
      return Fingerprint.of(
          MessageDigest.getInstance("SHA-256").digest(request.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * One attempt of the dialect's claim on an autocommit connection, with the parameters
   * JdbcKeyStore binds.
   */
  private ClaimOutcome claim(RecordId id, Fingerprint fp, Instant now, boolean locked)
      throws SQLException {
    ParamValues p =
        dialect
            .values(now)
            .record(id)
            .fingerprint(fp.bytes())
            .lease(Nanos.of(LEASE))
            .window(Nanos.of(WINDOW));
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(true);
      ClaimOutcome o = dialect.claimOnce(c, p, locked);
      return o != null ? o : dialect.readOutcome(c, p);
    }
  }
}
