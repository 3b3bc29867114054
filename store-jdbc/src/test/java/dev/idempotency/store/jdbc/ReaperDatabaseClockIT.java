package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Reaper;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The reaper over the JDBC store with {@link ClockSource#DATABASE}: the store judges leases and
 * retention by the database clock and ignores the engine's cutoff, and the reaper reports only the
 * abandoned records it deleted.
 */
class ReaperDatabaseClockIT {
  private static final Fingerprint FP = Fingerprint.of("request".getBytes(StandardCharsets.UTF_8));
  private static final Duration LEASE = Duration.ofMillis(300);
  private static final Duration WINDOW = Duration.ofMillis(300);

  @ParameterizedTest
  @EnumSource(
      value = TestDatabases.class,
      names = {"POSTGRES", "MARIADB_CONNECTOR_J", "H2"})
  @Timeout(60)
  void reportsAnAbandonedRecordOnlyOnceItIsDeleted(TestDatabases db) throws Exception {
    String table = "idem_reaper_" + db.name().toLowerCase();
    try (HikariDataSource pool = db.pool(db.url(), 2)) {
      AbstractJdbcKeyStoreTest.dropTables(pool, table);
      JdbcKeyStore store =
          JdbcKeyStore.builder(pool)
              .tableName(table)
              .clockSource(ClockSource.DATABASE)
              .createSchemaIfMissing()
              .build();
      // the engine's clock far behind the database's: with the database clock it decides nothing
      Instant engineNow = Instant.parse("2001-01-01T00:00:00Z");
      IdempotencyConfig hour =
          IdempotencyConfig.builder()
              .clock(() -> engineNow)
              .replayWindow(WINDOW)
              .retention(Duration.ofHours(1))
              .build();
      IdempotencyConfig second = hour.toBuilder().retention(Duration.ofSeconds(1)).build();
      RecordId id = RecordId.of("acct", "abandoned");
      assertThat(store.claim(new ClaimRequest(id, FP, engineNow, LEASE, WINDOW)))
          .isInstanceOf(ClaimOutcome.Claimed.class);
      while (store.findAbandoned(engineNow, 10).isEmpty()) {
        Thread.sleep(50); // until the lease expired by the database clock
      }

      Reaper.Report early = new Reaper(store, hour, 10, 1).runOnce();
      assertThat(early.deleted()).as("a lease that just expired, with 1 h retention").isZero();
      assertThat(early.unfinished())
          .as(
              "records reported as deleted by a run that deleted nothing (the store "
                  + "judges the cutoff by the database clock, not the engine's now - retention)")
          .isEmpty();
      assertThat(store.lookup(id)).isPresent();

      Reaper.Report late;
      do {
        Thread.sleep(100); // until the lease ended 1 s ago by the database clock
        late = new Reaper(store, second, 10, 1).runOnce();
        assertThat(late.unfinished().size())
            .as("records reported vs deleted")
            .isLessThanOrEqualTo(late.deleted());
      } while (late.deleted() == 0);
      assertThat(late.unfinished()).extracting(RecordSnapshot::id).containsExactly(id);
      assertThat(store.lookup(id)).isEmpty();
      AbstractJdbcKeyStoreTest.dropTables(pool, table);
    }
  }
}
