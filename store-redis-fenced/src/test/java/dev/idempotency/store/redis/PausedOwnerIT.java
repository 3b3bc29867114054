package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paused owner, with real processes: owner A (a JVM of its own) takes the work and is frozen
 * with {@code kill -STOP} past its 1 s lease; B takes over and finishes; A is woken with {@code
 * kill -CONT} and goes on as if nothing happened. With the fenced store every write of A is
 * refused, the record's and the business row's. With a bare {@code SET NX PX} lock, the same story
 * writes the business row twice: what fencing buys.
 *
 * <p>The business row lives in an H2 database this test serves over TCP, so both processes write
 * the same row; the fenced write keeps the fence beside it ({@code UPDATE … WHERE fence < ?}).
 */
class PausedOwnerIT {
  private static final AtomicInteger LEDGERS = new AtomicInteger();

  @TempDir Path dir;
  private Server h2;
  private String ledger = "";
  private RedisClient client;
  private String prefix = "";

  @BeforeEach
  void start() throws Exception {
    client = SharedRedis.client();
    prefix = SharedRedis.uniquePrefix("paused");
    h2 = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
    ledger =
        "jdbc:h2:tcp://localhost:"
            + h2.getPort()
            + "/mem:ledger"
            + LEDGERS.incrementAndGet()
            + ";DB_CLOSE_DELAY=-1";
    try (Connection c = DriverManager.getConnection(ledger);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE ledger (id VARCHAR(20) PRIMARY KEY, amount INT NOT NULL,"
              + " fence BIGINT NOT NULL)");
      s.execute("INSERT INTO ledger VALUES ('order', 0, 0)");
    }
  }

  @AfterEach
  void stop() {
    try (StatefulRedisConnection<byte[], byte[]> c = SharedRedis.connect(client)) {
      SharedRedis.deleteAll(c, prefix);
    } finally {
      client.shutdown();
      h2.stop();
    }
  }

  @Test
  void aPausedOwnerWokenAfterATakeoverIsRefusedByTheStoreAndByTheGuardedRow() throws Exception {
    RecordId id = RecordId.of("tenant", "order-1");
    try (OwnerProcess a = start("owner-A", "fenced");
        StatefulRedisConnection<byte[], byte[]> b = SharedRedis.connect(client)) {
      FenceToken fenceA = FenceToken.of(Long.parseLong(a.await("CLAIMED")));
      a.await("WAITING");
      a.freeze();

      RedisKeyStore storeB = RedisKeyStore.builder(b).keyPrefix(prefix).build();
      ClaimOutcome.Claimed takeover = takeOver(storeB, id);
      assertThat(takeover.takeover()).isTrue();
      assertThat(takeover.fence().isNewerThan(fenceA)).isTrue();
      assertThat(OwnerWorker.guardedWrite(ledger, takeover.fence())).isEqualTo(1);
      storeB.complete(id, takeover.fence(), StoredResponse.ofUtf8(200, "B"), Instant.now());

      a.go();
      a.thaw();
      assertThat(a.awaitExit()).as(a.transcript()).isZero();

      assertThat(a.line("WRITE")).as(a.transcript()).contains("0");
      assertThat(List.of("CHECKPOINT", "COMPLETE", "RELEASE"))
          .allSatisfy(
              what ->
                  assertThat(a.line(what))
                      .as("%s of the woken owner A\n%s", what, a.transcript())
                      .hasValueSatisfying(v -> assertThat(v).startsWith("refused")));
      assertThat(ledger())
          .as("amount, fence of the business row")
          .containsExactly(1L, takeover.fence().value());
      RecordSnapshot record = storeB.lookup(id).orElseThrow();
      assertThat(record.state()).isEqualTo(KeyState.COMPLETE);
      assertThat(record.response().orElseThrow().bodyAsUtf8()).isEqualTo("B");
    }
  }

  @Test
  void aPausedHolderOfABareSetNxPxLockWritesAfterTheLockMovedOn() throws Exception {
    String lockKey = prefix + "order-1";
    try (OwnerProcess a = start("holder-A", "bare");
        StatefulRedisConnection<String, String> b = client.connect(StringCodec.UTF8)) {
      assertThat(a.await("LOCKED")).isNotEqualTo("no");
      a.await("WAITING");
      a.freeze();

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!"OK".equals(b.sync().set(lockKey, "B", SetArgs.Builder.nx().px(1000)))) {
        if (System.nanoTime() > deadline) {
          fail("B never got the lock after A's 1 s expiry");
        }
        Thread.sleep(50);
      }
      assertThat(OwnerWorker.unguardedWrite(ledger)).isEqualTo(1);
      b.sync().del(lockKey);

      a.go();
      a.thaw();
      assertThat(a.awaitExit()).as(a.transcript()).isZero();

      // nothing told A its lock expired: the one write happened twice
      assertThat(a.line("WRITE")).as(a.transcript()).contains("1");
      assertThat(ledger().get(0)).as("the amount: written by B, then again by A").isEqualTo(2L);
    }
  }

  private OwnerProcess start(String name, String mode) throws Exception {
    return OwnerProcess.start(
        name, dir, mode, System.getenv("IDEMPOTENCY_TEST_REDIS_URL"), prefix, "order-1", ledger);
  }

  /** B's claim, repeated until A's 1 s lease ran out on the server's clock (at most 10 s). */
  private static ClaimOutcome.Claimed takeOver(RedisKeyStore store, RecordId id)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      ClaimOutcome outcome =
          store.claim(
              new ClaimRequest(
                  id,
                  OwnerWorker.FINGERPRINT,
                  Instant.now(),
                  OwnerWorker.LEASE,
                  Duration.ofHours(1)));
      if (outcome instanceof ClaimOutcome.Claimed c) {
        return c;
      }
      if (System.nanoTime() > deadline) {
        fail("no takeover within 10 s of a 1 s lease: " + outcome);
      }
      Thread.sleep(50);
    }
  }

  private List<Long> ledger() throws Exception {
    try (Connection c = DriverManager.getConnection(ledger);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT amount, fence FROM ledger WHERE id = 'order'")) {
      rs.next();
      return List.of(rs.getLong(1), rs.getLong(2));
    }
  }
}
