package dev.idempotency.benchmarks;

import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Threads;

/**
 * Four threads contending for the same keys: consecutive operations share a key in groups of four,
 * so about one caller in four wins the claim and completes it while the others see it in flight or
 * completed, as identical retries racing each other do. Beside it, the baseline does the same race
 * with the storage's own primitives.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar ContendedClaimBenchmark -p store=IN_MEMORY
 * }</pre>
 */
@Threads(4)
public class ContendedClaimBenchmark extends AbstractStoreBenchmark {
  /** Callers per key. */
  static final int CONTENDERS = 4;

  private final AtomicLong sequence = new AtomicLong();
  private final String prefix = "c-" + System.nanoTime() + "-";

  @Benchmark
  public ClaimOutcome contended() {
    return claimAndComplete(RecordId.of(SCOPE, prefix + sequence.getAndIncrement() / CONTENDERS));
  }

  @Benchmark
  public String baselineContended() {
    String key = prefix + "b" + sequence.getAndIncrement() / CONTENDERS;
    baseline.claimAndComplete(SCOPE, key, FINGERPRINT, RESPONSE_BODY);
    return key;
  }
}
