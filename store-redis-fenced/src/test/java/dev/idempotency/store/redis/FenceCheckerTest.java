package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fence checker refuses older fences per resource and serializes a resource's writes; and the
 * database form of the same check, the fence stored beside the business row, on embedded H2.
 */
class FenceCheckerTest {
  @Test
  void anOlderFenceIsRefusedAndItsWriteDoesNotRun() {
    FenceChecker<String> checker = new FenceChecker<>();
    List<String> writes = new ArrayList<>();
    checker.guard("order-1", FenceToken.of(5), () -> writes.add("owner 5"));
    checker.guard("order-1", FenceToken.of(5), () -> writes.add("owner 5 again"));
    checker.guard("order-1", FenceToken.of(9), () -> writes.add("owner 9"));
    assertThatThrownBy(() -> checker.guard("order-1", FenceToken.of(5), () -> writes.add("stale")))
        .isInstanceOf(StaleFenceException.class)
        .hasMessageContaining("fence#5")
        .hasMessageContaining("fence#9");
    assertThat(writes).containsExactly("owner 5", "owner 5 again", "owner 9");
    assertThat(checker.highest("order-1")).contains(FenceToken.of(9));
    // another resource has its own history
    assertThat(checker.admit("order-2", FenceToken.of(1))).isTrue();
    assertThat(checker.admit("order-1", FenceToken.of(8))).isFalse();
  }

  @Test
  void aNewerFenceWaitsForAnOlderWriteInProgressInsteadOfInterleaving() throws Exception {
    FenceChecker<String> checker = new FenceChecker<>();
    CountDownLatch olderInside = new CountDownLatch(1);
    CountDownLatch letOlderFinish = new CountDownLatch(1);
    List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> older =
          pool.submit(
              () ->
                  checker.guard(
                      "row",
                      FenceToken.of(1),
                      () -> {
                        events.add("older begins");
                        olderInside.countDown();
                        await(letOlderFinish);
                        return events.add("older ends");
                      }));
      assertThat(olderInside.await(10, TimeUnit.SECONDS)).isTrue();
      Future<?> newer =
          pool.submit(() -> checker.guard("row", FenceToken.of(2), () -> events.add("newer")));
      Thread.sleep(100); // give the newer write the chance to interleave, if it could
      letOlderFinish.countDown();
      older.get(10, TimeUnit.SECONDS);
      newer.get(10, TimeUnit.SECONDS);
      assertThat(events).containsExactly("older begins", "older ends", "newer");
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * The guarded business write of docs/stores-redis.md: the fence stored beside the row, the check
   * in the write itself. A stale owner's write matches no row.
   */
  @Test
  void theFenceBesideTheBusinessRowRefusesAStaleOwnersWrite() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:fenced-row");
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE accounts (id VARCHAR(10) PRIMARY KEY, balance INT, fence BIGINT)");
      s.execute("INSERT INTO accounts VALUES ('acc-1', 100, 0)");
      assertThat(debit(c, 30, FenceToken.of(7))).as("owner 7").isEqualTo(1);
      assertThat(debit(c, 30, FenceToken.of(12))).as("owner 12, after a takeover").isEqualTo(1);
      assertThat(debit(c, 30, FenceToken.of(7))).as("owner 7, woken from a pause").isZero();
      try (ResultSet rs = s.executeQuery("SELECT balance, fence FROM accounts")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(40);
        assertThat(rs.getLong(2)).isEqualTo(12);
      }
    }
  }

  private static int debit(Connection c, int amount, FenceToken fence) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE accounts SET balance = balance - ?, fence = ? WHERE id = 'acc-1' AND fence < ?")) {
      ps.setInt(1, amount);
      ps.setLong(2, fence.value());
      ps.setLong(3, fence.value());
      return ps.executeUpdate();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not released within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
