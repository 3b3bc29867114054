package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The database form of the downstream fence check of docs/stores-redis.md, on embedded H2: the
 * request's fence row ({@link RequestFence}) and a ledger entry keyed by the request, in one
 * transaction, debit once across a takeover and refuse the stale owner.
 */
class RequestFenceTest {
  /**
   * The guarded business write of docs/stores-redis.md on H2: the request's fence row and a ledger
   * entry keyed by the request, in one transaction. Owner 7 debits; owner 12, after a takeover,
   * finds the entry and debits nothing; owner 7, woken from a pause, is refused by the fence row.
   */
  @Test
  void theFenceRowAndTheRequestsEntryDebitOnceAndRefuseAStaleOwner() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:fenced-ledger");
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE request_fence (request_key VARCHAR(100) PRIMARY KEY, fence BIGINT)");
      s.execute(
          "CREATE TABLE ledger_entry (request_key VARCHAR(100) PRIMARY KEY, account VARCHAR(10),"
              + " amount INT)");
      String request = "tenant/order-1#17";
      assertThat(debit(c, request, FenceToken.of(7))).as("owner 7").isEqualTo("debited");
      assertThat(debit(c, request, FenceToken.of(12))).as("owner 12").isEqualTo("done before");
      assertThat(debit(c, request, FenceToken.of(7))).as("owner 7, woken").isEqualTo("stale");
      try (ResultSet rs =
          s.executeQuery(
              "SELECT COUNT(*), SUM(amount) FROM ledger_entry WHERE account = 'acc-1'")) {
        rs.next();
        assertThat(rs.getInt(1)).as("entries").isEqualTo(1);
        assertThat(rs.getInt(2)).as("total debited").isEqualTo(-30);
      }
      try (ResultSet rs = s.executeQuery("SELECT fence FROM request_fence")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(12);
      }
    }
  }

  /** The two statements of the docs in one transaction; what happened, for the assertions. */
  private static String debit(Connection c, String request, FenceToken fence) throws Exception {
    c.setAutoCommit(false);
    try (PreparedStatement entry =
        c.prepareStatement(
            "MERGE INTO ledger_entry e USING (VALUES (CAST(? AS VARCHAR))) v(k)"
                + " ON e.request_key = v.k"
                + " WHEN NOT MATCHED THEN INSERT VALUES (v.k, 'acc-1', -30)")) {
      if (!RequestFence.raise(c, request, fence)) {
        c.rollback();
        return "stale";
      }
      entry.setString(1, request);
      int inserted = entry.executeUpdate();
      c.commit();
      return inserted == 1 ? "debited" : "done before";
    } finally {
      c.setAutoCommit(true);
    }
  }
}
