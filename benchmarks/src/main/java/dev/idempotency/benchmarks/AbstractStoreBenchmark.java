package dev.idempotency.benchmarks;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What every store benchmark shares: the store picked by {@code -p store=…}, its baseline over the
 * same storage, one completed record to replay, and the claim-and-complete every first request
 * costs. Shared JMH settings live here.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public abstract class AbstractStoreBenchmark {
  static final String SCOPE = "bench-account";
  static final byte[] FINGERPRINT = new byte[32];
  static final byte[] OTHER_FINGERPRINT = new byte[32];
  static final byte[] RESPONSE_BODY =
      "{\"id\":\"ch_1\",\"status\":\"succeeded\"}".getBytes(StandardCharsets.UTF_8);
  static final StoredResponse RESPONSE = StoredResponse.of(201, RESPONSE_BODY);
  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration WINDOW = Duration.ofHours(24);

  static {
    FINGERPRINT[0] = 1;
    OTHER_FINGERPRINT[0] = 2;
  }

  @Param({"IN_MEMORY", "H2", "POSTGRESQL", "MARIADB", "REDIS"})
  public StoreType store;

  Fixture fixture;
  KeyStore keyStore;
  Baseline baseline;
  final Fingerprint fingerprint = Fingerprint.of(FINGERPRINT);
  final Fingerprint otherFingerprint = Fingerprint.of(OTHER_FINGERPRINT);
  static final String COMPLETED_KEY = "completed-key";
  final RecordId completedId = RecordId.of(SCOPE, COMPLETED_KEY);

  /** Fresh keys per thread, unique across threads and trials. */
  @State(Scope.Thread)
  public static class Keys {
    private String prefix;
    private long next;

    private static final AtomicLong THREADS = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() {
      prefix = "k-" + System.nanoTime() + "-" + THREADS.incrementAndGet() + "-";
    }

    String next() {
      return prefix + next++;
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    fixture = store.open();
  }

  /**
   * Every iteration starts from empty storage holding one completed record, so that the records
   * fresh claims leave behind (hundreds of thousands a second in memory) cannot make later
   * iterations measure the garbage collector or a bloated table instead of the claim.
   */
  @Setup(Level.Iteration)
  public void resetStorage() throws Exception {
    fixture.clear();
    keyStore = fixture.store();
    baseline = fixture.baseline();
    claimAndComplete(completedId);
    baseline.claimAndComplete(SCOPE, COMPLETED_KEY, FINGERPRINT, RESPONSE_BODY);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    fixture.close();
  }

  ClaimOutcome claimAndComplete(RecordId id) {
    Instant now = Instant.now();
    ClaimOutcome outcome = keyStore.claim(new ClaimRequest(id, fingerprint, now, LEASE, WINDOW));
    if (outcome instanceof ClaimOutcome.Claimed claimed) {
      FenceToken fence = claimed.fence();
      keyStore.complete(id, fence, RESPONSE, now);
    }
    return outcome;
  }
}
