package dev.idempotency.benchmarks;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.Operation;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the engine adds on top of the store, with no contention and the in-memory store: {@code
 * engineFresh} (a first request through {@code IdempotencyEngine.execute}) against {@code
 * baselineEngineFresh} (the same claim and completion called on the store directly), and the same
 * for a replay. Run with {@code -prof gc} for the allocation per request.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar EngineBenchmark -prof gc
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EngineBenchmark {
  private static final Fingerprint FINGERPRINT = Fingerprint.of(AbstractStoreBenchmark.FINGERPRINT);
  private static final Operation OPERATION = execution -> AbstractStoreBenchmark.RESPONSE;
  private static final RecordId COMPLETED =
      RecordId.of(AbstractStoreBenchmark.SCOPE, "completed-key");

  private InMemoryKeyStore store;
  private IdempotencyEngine engine;

  @Setup(Level.Iteration)
  public void setUp() throws Exception {
    if (engine != null) {
      engine.close();
    }
    store = new InMemoryKeyStore();
    engine = IdempotencyEngine.builder(store).build();
    engine.execute(COMPLETED, FINGERPRINT, Work.stepped(OPERATION));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engine.close();
  }

  @Benchmark
  public Outcome engineFresh(AbstractStoreBenchmark.Keys keys) throws Exception {
    return engine.execute(
        RecordId.of(AbstractStoreBenchmark.SCOPE, keys.next()),
        FINGERPRINT,
        Work.stepped(OPERATION));
  }

  @Benchmark
  public ClaimOutcome baselineEngineFresh(AbstractStoreBenchmark.Keys keys) {
    RecordId id = RecordId.of(AbstractStoreBenchmark.SCOPE, keys.next());
    Instant now = Instant.now();
    ClaimOutcome outcome =
        store.claim(
            new ClaimRequest(
                id, FINGERPRINT, now, AbstractStoreBenchmark.LEASE, AbstractStoreBenchmark.WINDOW));
    store.complete(
        id, ((ClaimOutcome.Claimed) outcome).fence(), AbstractStoreBenchmark.RESPONSE, now);
    return outcome;
  }

  @Benchmark
  public Outcome engineReplay() throws Exception {
    return engine.execute(COMPLETED, FINGERPRINT, Work.stepped(OPERATION));
  }

  @Benchmark
  public ClaimOutcome baselineEngineReplay() {
    return store.claim(
        new ClaimRequest(
            COMPLETED,
            FINGERPRINT,
            Instant.now(),
            AbstractStoreBenchmark.LEASE,
            AbstractStoreBenchmark.WINDOW));
  }
}
