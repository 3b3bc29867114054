package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reaper's batch on PostgreSQL stays within its limit whatever plan the database picks. With
 * the batch as an {@code IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)} subquery, a plan that puts
 * the subquery on the inner side of a nested loop ran it again for every outer row, and each rerun
 * skipped the rows the statement had already deleted, so its {@code LIMIT} reached further: a batch
 * of 2 deleted all 5 eligible records. The planner picked such a plan by itself in a CI run (TCK
 * rule 7.3, limit 2, 3 deleted); here the session's planner settings force it.
 */
class PostgresDeleteBatchIT {
  private static final Fingerprint FP = Fingerprint.of("request".getBytes(StandardCharsets.UTF_8));
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofMinutes(1);
  private static final Duration RETENTION = Duration.ofMinutes(2);

  /** Only a nested loop with the batch as its rescanned inner side is left to the planner. */
  private static final String RESCANNING_PLAN =
      "SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;"
          + " SET enable_memoize = off; SET enable_sort = off; SET enable_hashagg = off;"
          + " SET enable_indexscan = off; SET enable_bitmapscan = off";

  @Test
  @Timeout(60)
  void aBatchDeletesAtMostItsLimitUnderAPlanThatRescansIt() throws Exception {
    String table = "idem_pg_batch_" + AbstractJdbcKeyStoreTest.JVM;
    TestDatabases db = TestDatabases.POSTGRES;
    try (HikariDataSource admin = db.pool(db.url(), 2);
        HikariDataSource rescanning = rescanningPool(db)) {
      AbstractJdbcKeyStoreTest.dropTables(admin, table);
      try {
        JdbcKeyStore setup =
            JdbcKeyStore.builder(admin)
                .tableName(table)
                .clockSource(ClockSource.ENGINE)
                .createSchemaIfMissing()
                .build();
        for (int i = 0; i < 5; i++) {
          RecordId id = RecordId.of("acct", "k" + i);
          ClaimOutcome.Claimed won =
              (ClaimOutcome.Claimed) setup.claim(new ClaimRequest(id, FP, T0, LEASE, WINDOW));
          setup.complete(id, won.fence(), StoredResponse.ofUtf8(201, "done " + i), T0);
        }
        JdbcKeyStore store =
            JdbcKeyStore.builder(rescanning)
                .tableName(table)
                .clockSource(ClockSource.ENGINE)
                .build();
        assertThat(planOf(rescanning, table))
            .as("the plan this test means to force")
            .contains("Nested Loop Semi Join");
        Instant later = T0.plus(Duration.ofDays(1));

        assertThat(store.deleteExpired(later, RETENTION, 2)).isEqualTo(2);
        assertThat(rows(admin, table)).as("records left after one batch of 2").isEqualTo(3);
        assertThat(store.deleteExpired(later, RETENTION, 2)).isEqualTo(2);
        assertThat(store.deleteExpired(later, RETENTION, 2)).isEqualTo(1);
        assertThat(rows(admin, table)).isZero();
      } finally {
        AbstractJdbcKeyStoreTest.dropTables(admin, table);
      }
    }
  }

  private static HikariDataSource rescanningPool(TestDatabases db) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url());
    List<String> cred =
        TestDatabases.require("IDEMPOTENCY_TEST_PG_USER", "IDEMPOTENCY_TEST_PG_PASSWORD");
    config.setUsername(cred.get(0));
    config.setPassword(cred.get(1));
    config.setMaximumPoolSize(2);
    config.setConnectionInitSql(RESCANNING_PLAN);
    config.setPoolName("test-postgres-rescanning-plan");
    return new HikariDataSource(config);
  }

  /** The plan of the statement shape the store used to send, under this pool's settings. */
  private static String planOf(HikariDataSource pool, String table) throws Exception {
    StringBuilder plan = new StringBuilder();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "EXPLAIN DELETE FROM "
                    + table
                    + " WHERE (scope, idem_key) IN (SELECT scope, idem_key FROM "
                    + table
                    + " WHERE state = 'C' LIMIT 2 FOR UPDATE SKIP LOCKED)")) {
      while (rs.next()) {
        plan.append(rs.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }

  private static long rows(HikariDataSource pool, String table) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
