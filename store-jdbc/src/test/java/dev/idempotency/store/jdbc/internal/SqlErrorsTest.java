package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Which failures of a claim statement mean "another transaction holds the record" (in flight) and
 * which an outage; the cancelled lock wait with PostgreSQL's context is {@code
 * PostgresOneTransactionJdbcIT#aTwoCommitDuplicateOfAnOpenReClaimIsAnsweredInFlight}, on the
 * server.
 */
class SqlErrorsTest {
  @Test
  void lockTimeoutsAreLockWaits() {
    assertThat(SqlErrors.isClaimLockWait(new SQLException("lock timeout", "55P03"))).isTrue();
    assertThat(SqlErrors.isClaimLockWait(new SQLException("timeout", "HYT00"))).isTrue();
    assertThat(SqlErrors.isClaimLockWait(new SQLException("Lock wait timeout", "HY000", 1205)))
        .isTrue();
  }

  /**
   * A cancelled statement without the server's context of a wait for another transaction (a slow or
   * stopped database) is not a lock wait, nor is a failed connection.
   */
  @Test
  void aCancelWithoutTheWaitsContextOrABrokenConnectionIsNot() {
    assertThat(SqlErrors.isClaimLockWait(new SQLException("canceling statement", "57014")))
        .isFalse();
    assertThat(
            SqlErrors.isClaimLockWait(
                new SQLException("closed", "08006", new SQLException("lock", "55P03"))))
        .isFalse();
    assertThat(SqlErrors.isClaimLockWait(new SQLException("interrupted", "70100", 1317))).isFalse();
  }
}
