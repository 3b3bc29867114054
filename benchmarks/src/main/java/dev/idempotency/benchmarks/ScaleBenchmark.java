package dev.idempotency.benchmarks;

import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import java.time.Instant;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * How the claim's cost grows with the records already stored: with 10⁴, 10⁵ and 10⁶ completed
 * records in place, {@code claimAndRelease} claims a fresh key and releases it (so the record count
 * stays put), and {@code replayAmongExisting} replays one of the existing records. Index-backed
 * claims should stay flat.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar ScaleBenchmark -p store=IN_MEMORY -p existing=10000,1000000
 * }</pre>
 */
public class ScaleBenchmark extends AbstractStoreBenchmark {
  @Param({"10000", "100000", "1000000"})
  public int existing;

  private boolean filled;
  private long random = 1;

  /**
   * Fills the storage once per trial: the benchmarks below leave the number of records unchanged.
   */
  @Override
  @Setup(Level.Iteration)
  public void resetStorage() throws Exception {
    if (!filled) {
      super.resetStorage();
      fixture.preload(SCOPE, "existing-", existing, FINGERPRINT, RESPONSE);
      filled = true;
    }
  }

  @Benchmark
  public ClaimOutcome claimAndRelease(Keys keys) {
    RecordId id = RecordId.of(SCOPE, keys.next());
    Instant now = Instant.now();
    ClaimOutcome outcome = keyStore.claim(new ClaimRequest(id, fingerprint, now, LEASE, WINDOW));
    keyStore.release(id, ((ClaimOutcome.Claimed) outcome).fence(), now);
    return outcome;
  }

  @Benchmark
  public ClaimOutcome replayAmongExisting() {
    random =
        random * 6364136223846793005L + 1442695040888963407L; // an LCG: cheap, and no shared state
    int n = (int) Long.remainderUnsigned(random >>> 16, existing);
    return keyStore.claim(
        new ClaimRequest(
            RecordId.of(SCOPE, "existing-" + n), fingerprint, Instant.now(), LEASE, WINDOW));
  }
}
