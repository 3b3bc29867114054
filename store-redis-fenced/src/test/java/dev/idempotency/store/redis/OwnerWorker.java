package dev.idempotency.store.redis;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.LeaseLostException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
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
 * <p>Arguments: {@code <mode> <go file> <redis uri> <key prefix> <key> [ledger jdbc url]}. Modes:
 *
 * <ul>
 *   <li>{@code fenced}: claims through {@link RedisKeyStore} (lease 1 s, the server's clock),
 *       prints {@code CLAIMED <fence>}; after the go, the business write guarded by its fence
 *       ({@code UPDATE … WHERE fence < ?}), then checkpoint, complete and release, each printed as
 *       {@code <WHAT> ok} or {@code <WHAT> refused}.
 *   <li>{@code bare}: {@code SET <prefix><key> <token> NX PX 1000}, prints {@code LOCKED <token>};
 *       after the go, the business write with no check, printed as {@code WRITE <rows>}.
 *   <li>{@code race}: waits for the go, then claims (lease 30 s) and prints {@code OUTCOME
 *       <outcome's class>}.
 * </ul>
 *
 * Exit codes: 0 done, 3 never let go (60 s), 64 bad arguments.
 */
public final class OwnerWorker {
  static final Fingerprint FINGERPRINT = Fingerprint.of(new byte[] {7});
  static final Duration LEASE = Duration.ofSeconds(1);

  private OwnerWorker() {}

  public static void main(String[] args) throws Exception {
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
        case "race" -> {
          awaitGo(go);
          ClaimOutcome outcome =
              store.claim(
                  new ClaimRequest(
                      id, FINGERPRINT, Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1)));
          System.out.println("OUTCOME " + outcome.getClass().getSimpleName());
        }
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

  private static void fenced(RedisKeyStore store, RecordId id, Path go, String ledger)
      throws Exception {
    ClaimOutcome.Claimed claimed =
        (ClaimOutcome.Claimed)
            store.claim(
                new ClaimRequest(id, FINGERPRINT, Instant.now(), LEASE, Duration.ofHours(1)));
    FenceToken fence = claimed.fence();
    System.out.println("CLAIMED " + fence.value());
    awaitGo(go); // frozen here, past the lease; woken when another owner finished
    System.out.println("WRITE " + guardedWrite(ledger, fence));
    report(
        "CHECKPOINT",
        () -> store.checkpoint(id, fence, RecoveryPoint.of("charged"), Instant.now(), LEASE));
    report(
        "COMPLETE",
        () -> store.complete(id, fence, StoredResponse.ofUtf8(200, "A"), Instant.now()));
    report("RELEASE", () -> store.release(id, fence, Instant.now()));
  }

  /**
   * The business write guarded by the fence stored beside the row: 0 rows when a newer owner wrote.
   */
  static int guardedWrite(String ledger, FenceToken fence) throws Exception {
    try (Connection c = DriverManager.getConnection(ledger);
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE ledger SET amount = amount + 1, fence = ? WHERE id = 'order' AND fence < ?")) {
      ps.setLong(1, fence.value());
      ps.setLong(2, fence.value());
      return ps.executeUpdate();
    }
  }

  /** The same business write as a bare lock's holder makes it: nothing to compare. */
  static int unguardedWrite(String ledger) throws Exception {
    try (Connection c = DriverManager.getConnection(ledger);
        PreparedStatement ps =
            c.prepareStatement("UPDATE ledger SET amount = amount + 1 WHERE id = 'order'")) {
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
