package dev.idempotency.benchmarks;

import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import java.time.Instant;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * The claim hot path of each store, one outcome per benchmark, each beside its baseline: {@code
 * fresh} (claim + complete of a new key) vs {@code baselineFresh}, {@code replay} vs {@code
 * baselineReplay}, {@code mismatch} vs {@code baselineMismatch}. The published figure is our time /
 * the baseline's time in the same run.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar ClaimBenchmark -p store=IN_MEMORY
 * }</pre>
 */
public class ClaimBenchmark extends AbstractStoreBenchmark {
  @Benchmark
  public ClaimOutcome fresh(Keys keys) {
    return claimAndComplete(RecordId.of(SCOPE, keys.next()));
  }

  @Benchmark
  public String baselineFresh(Keys keys) {
    String key = keys.next();
    baseline.claimAndComplete(SCOPE, key, FINGERPRINT, RESPONSE_BODY);
    return key;
  }

  @Benchmark
  public ClaimOutcome replay() {
    // the id is built per call, as a request's would be, and as the baseline does
    return keyStore.claim(
        new ClaimRequest(
            RecordId.of(SCOPE, COMPLETED_KEY), fingerprint, Instant.now(), LEASE, WINDOW));
  }

  @Benchmark
  public byte[] baselineReplay() {
    return baseline.replay(SCOPE, COMPLETED_KEY, FINGERPRINT);
  }

  @Benchmark
  public ClaimOutcome mismatch() {
    return keyStore.claim(
        new ClaimRequest(
            RecordId.of(SCOPE, COMPLETED_KEY), otherFingerprint, Instant.now(), LEASE, WINDOW));
  }

  @Benchmark
  public boolean baselineMismatch() {
    return baseline.mismatch(SCOPE, COMPLETED_KEY, OTHER_FINGERPRINT);
  }
}
