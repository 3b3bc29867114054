package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The one-transaction mode on {@link TestDatabases#POSTGRES}. */
class PostgresOneTransactionJdbcIT extends AbstractOneTransactionJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.POSTGRES;
  }

  @Override
  String killSessionOf(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return "SELECT pg_terminate_backend(" + rs.getInt(1) + ")";
    }
  }

  /**
   * PostgreSQL inserts a fresh key's record, complete, only at the end of the one transaction, and
   * a two-commit claim takes no advisory lock: one that commits the key's row while the work runs
   * wins. The completion's insert then finds the row, the transaction rolls back (the work's order
   * with it) and runs again, and its claim answers from that row.
   */
  @Test
  void aTwoCommitClaimCommittedWhileTheWorkRunsWinsAndTheWorkRollsBack() throws Exception {
    RecordId id = newId();
    AtomicInteger runs = new AtomicInteger();
    AtomicReference<ClaimOutcome> twoCommit = new AtomicReference<>();
    OneTransactionOutcome outcome =
        store.claimAndComplete(
            request(id),
            (Connection tx, ClaimOutcome.Claimed claim) -> {
              runs.incrementAndGet();
              insertOrder(tx, id, "one-transaction");
              twoCommit.set(store.claim(request(id))); // its own connection, committed at once
              return created("one-transaction");
            });

    assertThat(twoCommit.get())
        .as("the two-commit claim, made while the one transaction had written nothing")
        .isInstanceOf(ClaimOutcome.Claimed.class);
    assertThat(outcome)
        .as("the one-transaction request, answered from the two-commit claim's row")
        .isInstanceOfSatisfying(
            OneTransactionOutcome.NotRun.class,
            notRun -> assertThat(notRun.outcome()).isInstanceOf(ClaimOutcome.InFlight.class));
    assertThat(runs.get()).as("the work's runs").isEqualTo(1);
    assertThat(ordersOf(id)).as("orders left by the rolled-back work").isZero();
    assertThat(store.lookup(id).orElseThrow().state()).isEqualTo(KeyState.IN_FLIGHT);
  }

  private static ClaimRequest request(RecordId id) {
    return new ClaimRequest(id, FP, Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1));
  }
}
