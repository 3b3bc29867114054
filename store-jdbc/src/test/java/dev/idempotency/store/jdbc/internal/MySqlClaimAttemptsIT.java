package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.store.jdbc.ClockSource;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two attempts of one MySQL claim, as {@link SqlDialect#claim} makes when the row changes between
 * the first attempt's statement and its read: the first finds the record completed within the
 * window, the second (with the same bound values, as within one claim) finds the window passed and
 * must claim the row, in either order of assignment. A statement that reused the first attempt's
 * nonce would, under {@code SIMULTANEOUS_ASSIGNMENT}, find its own refusal on the row, report the
 * row claimed and leave it completed. The database's clock moves the window past between the two
 * attempts, so that they can share their values as production's attempts do.
 */
class MySqlClaimAttemptsIT {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofSeconds(3);
  private static final Fingerprint FP = Fingerprint.of("request".getBytes(StandardCharsets.UTF_8));

  @ParameterizedTest
  @EnumSource(
      value = TestDatabases.class,
      names = {"MARIADB_CONNECTOR_J", "MARIADB_SA_CONNECTOR_J", "MARIADB_SA_DRIVER"})
  void aLaterAttemptClaimsTheRowItsFirstAttemptFoundCompleted(TestDatabases db) throws Exception {
    String table = "idem_claim_attempts_" + db.ordinal();
    try (HikariDataSource pool = db.pool(db.url(), 2)) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
      JdbcKeyStore store =
          JdbcKeyStore.builder(pool)
              .tableName(table)
              .clockSource(ClockSource.DATABASE)
              .createSchemaIfMissing()
              .build();
      RecordId id = RecordId.of("claim-attempts", "k1");
      Instant ignored = Instant.EPOCH; // the database's clock judges time here
      ClaimOutcome.Claimed owner =
          (ClaimOutcome.Claimed) store.claim(new ClaimRequest(id, FP, ignored, LEASE, WINDOW));
      store.complete(id, owner.fence(), StoredResponse.ofUtf8(201, "done"), ignored);

      MySqlDialect dialect = new MySqlDialect(Names.of(table), true, 5, false);
      ParamValues p =
          dialect
              .values(ignored)
              .record(id)
              .fingerprint(FP.bytes())
              .lease(Nanos.of(LEASE))
              .window(Nanos.of(WINDOW));
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(true);
        assertThat(dialect.claimOnce(c, p, false))
            .as("the first attempt, within the window: completed, read the response")
            .isNull();
        Thread.sleep(WINDOW.plusMillis(500).toMillis());
        ClaimOutcome later = dialect.claimOnce(c, p, true);
        assertThat(later)
            .as("the later attempt of the same claim, past the window")
            .isInstanceOf(ClaimOutcome.Claimed.class);
        Row row = dialect.read(c, p).orElseThrow();
        assertThat(row.state()).as("the row the later attempt reported claimed").isEqualTo('I');
        assertThat(row.fence())
            .as("the row's fence")
            .isEqualTo(((ClaimOutcome.Claimed) later).fence().value());
      }
    }
  }
}
