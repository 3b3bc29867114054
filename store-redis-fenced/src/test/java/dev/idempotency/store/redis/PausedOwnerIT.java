package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paused owner, with real processes: owner A (a JVM of its own) claims, does the first step of
 * its work ("reserve", checkpointed) and is frozen with {@code kill -STOP} in the middle of it,
 * before its second step, past its 1 s lease; B takes over, resumes from A's checkpoint, does the
 * second step ("charge") and completes; A is woken with {@code kill -CONT} and goes on as if
 * nothing happened. With the fenced store every write of A is refused, the record's and the
 * business database's, and each step is recorded once. With a bare {@code SET NX PX} lock, the same
 * story writes the business row twice: what fencing buys.
 *
 * <p>The business data lives in an H2 database this test serves over TCP, so both processes write
 * it; each step is idempotent per request (an entry keyed by the request's generation and the step)
 * and fenced by the request's fence row ({@link OwnerWorker#guardedStep}).
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
      s.execute("CREATE TABLE account (id VARCHAR(20) PRIMARY KEY, amount INT NOT NULL)");
      s.execute("INSERT INTO account VALUES ('order', 0)");
      s.execute(
          "CREATE TABLE request_fence (request_key VARCHAR(200) PRIMARY KEY,"
              + " fence BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE ledger_entry (request_key VARCHAR(200), step VARCHAR(20), amount INT,"
              + " PRIMARY KEY (request_key, step))");
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
  void anOwnerPausedMidWorkAndWokenAfterATakeoverIsRefusedAndNoStepRunsTwice() throws Exception {
    RecordId id = RecordId.of("tenant", "order-1");
    try (OwnerProcess a = start("owner-A", "fenced");
        StatefulRedisConnection<byte[], byte[]> b = SharedRedis.connect(client)) {
      FenceToken fenceA = FenceToken.of(Long.parseLong(a.await("CLAIMED")));
      assertThat(a.await("RESERVE")).as(a.transcript()).isEqualTo("1");
      a.await("RESERVED");
      a.await("WAITING");
      a.freeze(); // after its first step, before its second

      RedisKeyStore storeB = RedisKeyStore.builder(b).keyPrefix(prefix).build();
      ClaimOutcome.Claimed takeover = takeOver(storeB, id);
      assertThat(takeover.takeover()).isTrue();
      assertThat(takeover.fence().isNewerThan(fenceA)).isTrue();
      assertThat(takeover.resumeFrom()).as("A's checkpoint").contains(RecoveryPoint.of("reserved"));
      assertThat(takeover.generation()).as("the request's generation").isEqualTo(fenceA);
      String request = OwnerWorker.requestKey(id, takeover.generation());
      assertThat(OwnerWorker.guardedStep(ledger, request, "charge", takeover.fence())).isEqualTo(1);
      storeB.complete(id, takeover.fence(), StoredResponse.ofUtf8(200, "B"), Instant.now());

      a.go();
      a.thaw();
      assertThat(a.awaitExit()).as(a.transcript()).isZero();

      assertThat(a.line("WRITE")).as("A's second step\n%s", a.transcript()).contains("0");
      assertThat(List.of("CHECKPOINT", "COMPLETE", "RELEASE"))
          .allSatisfy(
              what ->
                  assertThat(a.line(what))
                      .as("%s of the woken owner A\n%s", what, a.transcript())
                      .hasValueSatisfying(v -> assertThat(v).startsWith("refused")));
      assertThat(query("SELECT step FROM ledger_entry WHERE request_key = '" + request + "'"))
          .as("the steps of the request, each once")
          .containsExactlyInAnyOrder("reserve", "charge");
      assertThat(query("SELECT fence FROM request_fence"))
          .as("the request's fence row: B's")
          .containsExactly(Long.toString(takeover.fence().value()));
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
      assertThat(query("SELECT amount FROM account"))
          .as("the amount: written by B, then again by A")
          .containsExactly("2");
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

  private List<String> query(String sql) throws Exception {
    List<String> values = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(ledger);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }
}
