package dev.idempotency.benchmarks;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * What one heartbeat tick of an instance costs with 1 to 100,000 operations in flight: one {@code
 * heartbeatAll} call renewing every lease the instance holds, which is what the engine's heartbeat
 * scheduler sends per tick. How many statements a tick takes follows from each store's batching
 * (the JDBC store: one {@code UPDATE} per 256 leases in one transaction; Redis: one script per
 * index shard and 256 leases, pipelined; DynamoDB: one {@code UpdateItem} per lease, 32 at a time);
 * the time is this benchmark's.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar HeartbeatBenchmark -p store=POSTGRESQL,MARIADB
 * bash benchmarks/heartbeat.sh        # durable PostgreSQL, 100 to 100,000 leases
 * }</pre>
 */
public class HeartbeatBenchmark extends AbstractStoreBenchmark {
  /** Long enough that no lease expires during a trial, however slow the store. */
  private static final Duration HELD = Duration.ofHours(1);

  @Param({"1", "100", "1000", "10000", "100000"})
  public int inFlight;

  private final Map<RecordId, FenceToken> leases = new HashMap<>();

  /** Claims the in-flight records once per trial: a tick changes no record count, only leases. */
  @Override
  @Setup(Level.Iteration)
  public void resetStorage() throws Exception {
    if (leases.isEmpty()) {
      super.resetStorage();
      Instant now = Instant.now();
      for (int i = 0; i < inFlight; i++) {
        RecordId id = RecordId.of(SCOPE, "in-flight-" + i);
        ClaimOutcome outcome = keyStore.claim(new ClaimRequest(id, fingerprint, now, HELD, WINDOW));
        if (!(outcome instanceof ClaimOutcome.Claimed claimed)) {
          throw new IllegalStateException(
              "in-flight record " + id + " was not claimed: " + outcome);
        }
        leases.put(id, claimed.fence());
      }
    }
  }

  @Benchmark
  public Set<RecordId> tick() {
    Set<RecordId> lost = keyStore.heartbeatAll(leases, Instant.now(), HELD);
    if (!lost.isEmpty()) {
      // a tick that loses leases measures refusals, not renewals
      throw new IllegalStateException(lost.size() + " of " + inFlight + " leases were refused");
    }
    return lost;
  }
}
