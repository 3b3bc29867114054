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
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two attempts of one MySQL claim, as {@link SqlDialect#claim} makes when the row changes between the first
 * attempt's statement and its read: the first finds the record completed within the window, the second finds it
 * claimable and must claim the row, in either order of assignment. A statement that reused the first attempt's
 * nonce would, under {@code SIMULTANEOUS_ASSIGNMENT}, find its own refusal on the row, report the row claimed and
 * leave it completed.
 */
class MySqlClaimAttemptsIT {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Fingerprint FP = Fingerprint.of("request".getBytes(StandardCharsets.UTF_8));

  @ParameterizedTest
  @EnumSource(value = TestDatabases.class, names = {"MARIADB_CONNECTOR_J", "MARIADB_SA_CONNECTOR_J",
      "MARIADB_SA_DRIVER"})
  void aLaterAttemptClaimsTheRowItsFirstAttemptFoundCompleted(TestDatabases db) throws SQLException {
    String table = "idem_claim_attempts_" + db.ordinal();
    try (HikariDataSource pool = db.pool(db.url(), 2)) {
      try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
      JdbcKeyStore store = JdbcKeyStore.builder(pool).tableName(table).clockSource(ClockSource.ENGINE)
          .createSchemaIfMissing().build();
      RecordId id = RecordId.of("claim-attempts", "k1");
      ClaimOutcome.Claimed owner = (ClaimOutcome.Claimed) store.claim(new ClaimRequest(id, FP, T0, LEASE, WINDOW));
      store.complete(id, owner.fence(), StoredResponse.ofUtf8(201, "done"), T0);

      MySqlDialect dialect = new MySqlDialect(Names.of(table), false, 5);
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(true);
        assertThat(dialect.claimOnce(c, claimValues(dialect, id, T0.plusSeconds(1)), false))
            .as("the first attempt, within the window: completed, read the response").isNull();
        ParamValues p = claimValues(dialect, id, T0.plus(WINDOW).plusSeconds(1));
        ClaimOutcome later = dialect.claimOnce(c, p, true);
        assertThat(later).as("the later attempt, past the window").isInstanceOf(ClaimOutcome.Claimed.class);
        Row row = dialect.read(c, p).orElseThrow();
        assertThat(row.state()).as("the row the later attempt reported claimed").isEqualTo('I');
        assertThat(row.fence()).as("the row's fence").isEqualTo(((ClaimOutcome.Claimed) later).fence().value());
      }
    }
  }

  /**
   * The values JdbcKeyStore binds for a claim at {@code now}. The two attempts get values of their own here
   * because the test moves the engine's clock between them; within one claim the attempts share them.
   */
  private static ParamValues claimValues(SqlDialect dialect, RecordId id, Instant now) {
    return dialect.values(now).record(id).fingerprint(FP.bytes()).lease(Nanos.of(LEASE)).window(Nanos.of(WINDOW));
  }
}
