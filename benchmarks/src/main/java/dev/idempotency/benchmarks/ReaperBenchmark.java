package dev.idempotency.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The reaper's delete: one {@code deleteExpired} batch of {@value #BATCH} records past retention.
 * Each iteration stores {@value #BATCHES} batches' worth of completed records, then deletes them
 * batch by batch; the score is the time per batch (divide {@value #BATCH} by it for records per
 * second).
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar ReaperBenchmark -p store=POSTGRESQL
 * }</pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, batchSize = ReaperBenchmark.BATCHES)
@Measurement(iterations = 5, batchSize = ReaperBenchmark.BATCHES)
public class ReaperBenchmark extends AbstractStoreBenchmark {
  static final int BATCH = 500;
  static final int BATCHES = 40;

  @Override
  @Setup(Level.Iteration)
  public void resetStorage() throws Exception {
    super.resetStorage();
    fixture.preload(SCOPE, "expired-", BATCH * BATCHES, FINGERPRINT, RESPONSE);
  }

  /** Deletes one batch; with a retention of 1 ns every completed record is past it. */
  @Benchmark
  public int deleteBatch() {
    return keyStore.deleteExpired(Instant.now(), Duration.ofNanos(1), BATCH);
  }
}
