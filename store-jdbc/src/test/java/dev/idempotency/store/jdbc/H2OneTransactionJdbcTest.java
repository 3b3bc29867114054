package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one-transaction mode on {@link TestDatabases#H2}. */
class H2OneTransactionJdbcTest extends AbstractOneTransactionJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  /**
   * None: {@code ABORT_SESSION} closes the whole in-memory database, and an embedded database ends
   * with the process that would have crashed.
   */
  @Override
  String killSessionOf(Connection c) {
    return null;
  }

  /**
   * A two-commit claim of a key whose record an open one-transaction run inserted, uncommitted: H2
   * checks the primary key against that entry in a loop that ignores its {@code LOCK_TIMEOUT}, so
   * without a bound of the store's own the claim waits as long as the run stays open (forever
   * behind a stuck handler). It ends at the statement timeout, answered in flight with its lease.
   */
  @Test
  void aTwoCommitClaimOfAKeyAnOpenRunHoldsIsAnsweredInFlight() throws Exception {
    JdbcKeyStore impatient = storeOver(pool, Duration.ofSeconds(1));
    RecordId id = newId();
    assertThat(twoCommitClaimWhileARunHolds(impatient, id))
        .as("the two-commit claim, statementTimeout 1 s")
        .isEqualTo(new ClaimOutcome.InFlight(Duration.ofSeconds(30)));
  }

  /**
   * A one-transaction run bounds its session's waits with H2's {@code SET QUERY_TIMEOUT} for the
   * transaction; a timeout the application had set on the pooled session is what it finds again
   * afterwards (one connection in the pool, so the same session), whether longer or shorter than
   * the store's.
   */
  @ParameterizedTest
  @ValueSource(ints = {0, 500, 7000})
  void aRunLeavesTheSessionsQueryTimeoutAsItWas(int applications) throws Exception {
    HikariDataSource single = newPool(1, null);
    JdbcKeyStore onSingle = storeOver(single, Duration.ofSeconds(1));
    try (Connection c = single.getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET QUERY_TIMEOUT " + applications);
    }
    RecordId id = newId();
    assertThat(
            onSingle.claimAndComplete(
                request(id), (Connection tx, ClaimOutcome.Claimed claim) -> created("run")))
        .isInstanceOf(OneTransactionOutcome.Committed.class);
    try (Connection c = single.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                    + " WHERE SETTING_NAME = 'QUERY_TIMEOUT'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1))
          .as("the session's QUERY_TIMEOUT after the run")
          .isEqualTo(Integer.toString(applications));
    }
  }
}
