package dev.idempotency.benchmarks;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Outcome;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
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
 * What the library costs a single-step write request (one business {@code INSERT}, one commit),
 * fresh key each time, on durable and non-durable servers in one run:
 *
 * <ul>
 *   <li>{@code baseline}: the request without the library, its write and its commit;
 *   <li>{@code oneTransaction}: through {@code IdempotencyEngine.execute} with {@code
 *       Work.inOneTransaction}: the claim, the business write and the completion in one
 *       transaction, one commit;
 *   <li>{@code twoCommits}: through {@code IdempotencyEngine.execute}, the business write committed
 *       with the completion by {@code JdbcKeyStore.completeWith}: the claim commits on its own
 *       first, so two commits;
 * </ul>
 *
 * <p>The ratio of each to {@code baseline} is the published figure. With durability on, a commit
 * waits for the disk, and it is the most expensive thing such a request does.
 *
 * <pre>{@code
 * bash benchmarks/durable.sh     # starts the durable servers and runs this class
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SingleStepBenchmark {
  @Param({"POSTGRESQL_DURABLE", "MARIADB_DURABLE", "POSTGRESQL", "MARIADB"})
  public OrdersServer server;

  private OrdersDatabase database;
  private IdempotencyEngine engine;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    database = new OrdersDatabase(server);
    engine = IdempotencyEngine.builder(database.store).build();
  }

  @Setup(Level.Iteration)
  public void clear() throws Exception {
    database.clear();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engine.close();
    database.close();
  }

  @Benchmark
  public String baseline(AbstractStoreBenchmark.Keys keys) throws Exception {
    String key = keys.next();
    database.bareRequest(key);
    return key;
  }

  @Benchmark
  public Outcome oneTransaction(AbstractStoreBenchmark.Keys keys) throws Exception {
    return database.oneTransactionRequest(engine, keys.next());
  }

  @Benchmark
  public Outcome twoCommits(AbstractStoreBenchmark.Keys keys) throws Exception {
    return database.twoCommitRequest(engine, keys.next());
  }
}
