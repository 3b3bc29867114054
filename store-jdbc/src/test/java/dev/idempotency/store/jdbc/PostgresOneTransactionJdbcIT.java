package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
    return terminateBackendOf(c);
  }

  /** The statement that ends the server session behind {@code c} (through a pooler too). */
  static String terminateBackendOf(Connection c) throws SQLException {
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

  /**
   * Two records whose scope and key read the same when joined by a separator ({@code acct/x} +
   * {@code k}, {@code acct} + {@code x/k}) do not share the advisory lock: the second request runs
   * while the first holds its transaction open, instead of waiting for it.
   */
  @Test
  void recordsWhoseJoinedScopeAndKeyReadAlikeDoNotShareALock() throws Exception {
    String suffix = Long.toString(System.nanoTime());
    RecordId first = RecordId.of("acct-" + suffix + "/x", "k");
    RecordId second = RecordId.of("acct-" + suffix, "x/k");
    CountDownLatch firstHolds = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<OneTransactionOutcome> held =
          pool.submit(
              () ->
                  store.claimAndComplete(
                      request(first),
                      (Connection tx, ClaimOutcome.Claimed claim) -> {
                        insertOrder(tx, first, "first");
                        firstHolds.countDown();
                        assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
                        return created("first");
                      }));
      assertThat(firstHolds.await(10, TimeUnit.SECONDS)).as("the first request holds").isTrue();
      OneTransactionOutcome other =
          store.claimAndComplete(
              request(second),
              (Connection tx, ClaimOutcome.Claimed claim) -> {
                insertOrder(tx, second, "second");
                return created("second");
              });
      assertThat(other)
          .as("the second record's request, while the first holds its transaction")
          .isInstanceOf(OneTransactionOutcome.Committed.class);
      release.countDown();
      assertThat(held.get(10, TimeUnit.SECONDS))
          .isInstanceOf(OneTransactionOutcome.Committed.class);
    } finally {
      release.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * Two one-transaction requests of different keys at {@code SERIALIZABLE}, both open at once,
   * whose work writes nothing: the store's own statements (each request reads its key's row and
   * inserts it) must not form a read-write cycle between them. Each work runs once and both commit.
   */
  @Test
  void requestsOfDifferentKeysAtSerializableDoNotAbortEachOther() throws Exception {
    JdbcKeyStore serializable =
        storeOver(isolatedPool(4, "TRANSACTION_SERIALIZABLE"), Duration.ofSeconds(5));
    RecordId first = newId();
    RecordId second = newId();
    CountDownLatch firstInWork = new CountDownLatch(1);
    CountDownLatch secondInWork = new CountDownLatch(1);
    AtomicInteger firstRuns = new AtomicInteger();
    AtomicInteger secondRuns = new AtomicInteger();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<OneTransactionOutcome> held =
          pool.submit(
              () ->
                  serializable.claimAndComplete(
                      request(first),
                      (Connection tx, ClaimOutcome.Claimed claim) -> {
                        if (firstRuns.incrementAndGet() == 1) {
                          firstInWork.countDown();
                          assertThat(secondInWork.await(10, TimeUnit.SECONDS)).isTrue();
                        }
                        return created("first");
                      }));
      assertThat(firstInWork.await(10, TimeUnit.SECONDS)).as("the first request's work").isTrue();
      OneTransactionOutcome other =
          serializable.claimAndComplete(
              request(second),
              (Connection tx, ClaimOutcome.Claimed claim) -> {
                secondRuns.incrementAndGet();
                secondInWork.countDown();
                return created("second");
              });
      OneTransactionOutcome firstOutcome = held.get(20, TimeUnit.SECONDS);
      assertThat(other)
          .as("the second request")
          .isInstanceOf(OneTransactionOutcome.Committed.class);
      assertThat(firstOutcome)
          .as("the first request")
          .isInstanceOf(OneTransactionOutcome.Committed.class);
      assertThat(firstRuns.get()).as("the first request's work runs").isEqualTo(1);
      assertThat(secondRuns.get()).as("the second request's work runs").isEqualTo(1);
    } finally {
      secondInWork.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /**
   * A two-commit claim of a record that an open one-transaction request re-claimed (a released
   * record: the claim statement's update holds its row lock) waits on that lock until the statement
   * timeout, and is answered in flight with its own lease as the hint: a transaction holds the
   * record, the database is not down.
   */
  @Test
  void aTwoCommitDuplicateOfAnOpenReClaimIsAnsweredInFlight() throws Exception {
    JdbcKeyStore impatient = storeOver(pool, Duration.ofSeconds(1));
    RecordId id = newId();
    ClaimOutcome.Claimed first = (ClaimOutcome.Claimed) impatient.claim(request(id));
    impatient.release(id, first.fence(), Instant.now());
    assertThat(twoCommitClaimWhileARunHolds(impatient, id))
        .as("the two-commit duplicate, after waiting 1 s on the re-claim's row lock")
        .isEqualTo(new ClaimOutcome.InFlight(Duration.ofSeconds(30)));
  }
}
