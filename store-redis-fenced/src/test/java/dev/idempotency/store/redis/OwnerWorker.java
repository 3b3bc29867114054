package dev.idempotency.store.redis;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;

/**
 * One application instance in a JVM of its own ({@link OwnerProcess} starts it): it takes a record,
 * or a bare lock, prints what it got, waits until the test lets it go on (the test freezes it
 * meanwhile), then acts as an owner that woke from a long pause.
 *
 * <p>Arguments: {@code <mode> <go file> <redis uri> <key prefix> <key> [ledger jdbc url | rounds]}.
 * Modes:
 *
 * <ul>
 *   <li>{@code fenced}: claims through {@link RedisKeyStore} (lease 1 s, the server's clock),
 *       prints {@code CLAIMED <fence>}; does the first step of its work ({@link #guardedStep},
 *       "reserve") and checkpoints it, prints {@code RESERVED ok}; then waits for the go (frozen
 *       there, in the middle of its work); then the second step ("charge"), printed as {@code WRITE
 *       <rows>}, then checkpoint, complete and release, each printed as {@code <WHAT> ok} or {@code
 *       <WHAT> refused}.
 *   <li>{@code bare}: {@code SET <prefix><key> <token> NX PX 1000}, prints {@code LOCKED <token>};
 *       after the go, the business write with no check, printed as {@code WRITE <rows>}.
 *   <li>{@code race}: for each of {@code rounds} rounds r, prints {@code READY-r}, blocks on {@code
 *       BLPOP <prefix>go} (the test pushes one item per worker at once), claims key {@code <key>-r}
 *       (lease 30 s) and prints {@code OUTCOME-r <outcome's class>}.
 * </ul>
 *
 * The worker exits (code 2) as soon as its standard input closes: the test JVM holds the other end,
 * so a test JVM that died, however it died, leaves no worker behind. Exit codes: 0 done, 2 parent
 * gone, 3 never let go (60 s), 64 bad arguments.
 */
public final class OwnerWorker {
  static final Fingerprint FINGERPRINT = Fingerprint.of(new byte[] {7});
  static final Duration LEASE = Duration.ofSeconds(1);

  private OwnerWorker() {}

  public static void main(String[] args) throws Exception {
    exitWhenTheParentIsGone();
    if (args.length < 5) {
      System.out.println("usage: <mode> <go file> <redis uri> <key prefix> <key> [ledger url]");
      System.exit(64);
    }
    String mode = args[0];
    Path go = Path.of(args[1]);
    RedisClient client = RedisClient.create(args[2]);
    RecordId id = RecordId.of("tenant", args[4]);
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      RedisKeyStore store = RedisKeyStore.builder(connection).keyPrefix(args[3]).build();
      switch (mode) {
        case "fenced" -> fenced(store, id, go, args[5]);
        case "bare" -> bare(client, args[3] + args[4], go, args[5]);
        case "race" -> race(client, store, args[3], args[4], Integer.parseInt(args[5]));
        default -> {
          System.out.println("unknown mode " + mode);
          System.exit(64);
        }
      }
    } finally {
      client.shutdown();
    }
    System.exit(0);
  }

  /** A daemon thread that halts the JVM when standard input ends (the parent closed or died). */
  private static void exitWhenTheParentIsGone() {
    Thread watchdog =
        new Thread(
            () -> {
              try (InputStream in = System.in) {
                while (in.read() >= 0) {
                  // the parent writes nothing; only the end matters
                }
              } catch (IOException e) {
                // the pipe broke: the parent is gone too
              }
              Runtime.getRuntime().halt(2);
            },
            "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  private static void fenced(RedisKeyStore store, RecordId id, Path go, String ledger)
      throws Exception {
    ClaimOutcome.Claimed claimed =
        (ClaimOutcome.Claimed)
            store.claim(
                new ClaimRequest(id, FINGERPRINT, Instant.now(), LEASE, Duration.ofHours(1)));
    FenceToken fence = claimed.fence();
    String request = requestKey(id, claimed.generation());
    System.out.println("CLAIMED " + fence.value());
    System.out.println("RESERVE " + guardedStep(ledger, request, "reserve", fence));
    store.checkpoint(id, fence, RecoveryPoint.of("reserved"), Instant.now(), LEASE);
    System.out.println("RESERVED ok");
    awaitGo(go); // frozen here, in the middle of the work, past the lease
    System.out.println("WRITE " + guardedStep(ledger, request, "charge", fence));
    report(
        "CHECKPOINT",
        () -> store.checkpoint(id, fence, RecoveryPoint.of("charged"), Instant.now(), LEASE));
    report(
        "COMPLETE",
        () -> store.complete(id, fence, StoredResponse.ofUtf8(200, "A"), Instant.now()));
    report("RELEASE", () -> store.release(id, fence, Instant.now()));
  }

  /**
   * What every owner of one request sends downstream: the record and its generation, which a
   * takeover keeps (the engine's {@code Execution.downstreamKey} is derived the same way).
   */
  static String requestKey(RecordId id, FenceToken generation) {
    return id + "#" + generation.value();
  }

  /**
   * One step of the business work, fenced and idempotent: in one transaction, the request's fence
   * row is raised to {@code fence} unless a newer owner's fence is there ({@code fence <= ?}: the
   * same owner may write again), and the step's ledger entry, keyed by request and step, is written
   * if absent. Returns 1 when the step is recorded (now or by an earlier owner of the request), 0
   * when a newer owner holds the request: the transaction is rolled back, the owner must stop.
   */
  static int guardedStep(String ledger, String request, String step, FenceToken fence)
      throws Exception {
    try (Connection c = DriverManager.getConnection(ledger)) {
      c.setAutoCommit(false);
      if (!RequestFence.raise(c, request, fence)) {
        c.rollback();
        return 0;
      }
      try (PreparedStatement entry =
          c.prepareStatement(
              "MERGE INTO ledger_entry e USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR)))"
                  + " v(k, step) ON e.request_key = v.k AND e.step = v.step"
                  + " WHEN NOT MATCHED THEN INSERT VALUES (v.k, v.step, 1)")) {
        entry.setString(1, request);
        entry.setString(2, step);
        entry.executeUpdate();
      }
      c.commit();
      return 1;
    }
  }

  /** The same business write as a bare lock's holder makes it: nothing to compare. */
  static int unguardedWrite(String ledger) throws Exception {
    try (Connection c = DriverManager.getConnection(ledger);
        PreparedStatement ps =
            c.prepareStatement("UPDATE account SET amount = amount + 1 WHERE id = 'order'")) {
      return ps.executeUpdate();
    }
  }

  private static void bare(RedisClient client, String lockKey, Path go, String ledger)
      throws Exception {
    try (StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8)) {
      String token = "A-" + ProcessHandle.current().pid();
      String ok = c.sync().set(lockKey, token, SetArgs.Builder.nx().px(LEASE.toMillis()));
      System.out.println("LOCKED " + ("OK".equals(ok) ? token : "no"));
      awaitGo(go); // frozen here, past the lock's expiry
      System.out.println("WRITE " + unguardedWrite(ledger));
    }
  }

  /**
   * Rounds of one claim each, every worker blocked on {@code BLPOP} until the test pushes one item
   * per worker in one command: Redis wakes them in one go, so their claims arrive together.
   */
  private static void race(
      RedisClient client, RedisKeyStore store, String prefix, String key, int rounds) {
    try (StatefulRedisConnection<byte[], byte[]> blocking =
        client.connect(ByteArrayCodec.INSTANCE)) {
      byte[] goList = (prefix + "go").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      for (int r = 0; r < rounds; r++) {
        System.out.println("READY-" + r + " waiting");
        KeyValue<byte[], byte[]> item = blocking.sync().blpop(60, goList);
        if (item == null) {
          System.exit(3);
        }
        ClaimOutcome outcome =
            store.claim(
                new ClaimRequest(
                    RecordId.of("tenant", key + "-" + r),
                    FINGERPRINT,
                    Instant.now(),
                    Duration.ofSeconds(30),
                    Duration.ofHours(1)));
        System.out.println("OUTCOME-" + r + " " + outcome.getClass().getSimpleName());
      }
    }
  }

  private static void report(String what, Runnable write) {
    try {
      write.run();
      System.out.println(what + " ok");
    } catch (LeaseLostException e) {
      System.out.println(what + " refused " + e.getMessage());
    }
  }

  private static void awaitGo(Path go) throws InterruptedException {
    System.out.println("WAITING for-go");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(go)) {
      if (System.nanoTime() > deadline) {
        System.exit(3);
      }
      Thread.sleep(1);
    }
  }
}
