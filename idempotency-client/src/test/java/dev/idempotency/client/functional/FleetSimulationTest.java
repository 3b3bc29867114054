package dev.idempotency.client.functional;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.RandomSource;
import dev.idempotency.client.RetryBudget;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.TokenBucketRetryBudget;
import dev.idempotency.client.internal.ProblemDetails;
import dev.idempotency.client.internal.RetryRun;
import dev.idempotency.testing.RecordingLogger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * A fleet of clients against a server that is down for a while, on a simulated clock (discrete
 * events, no real waiting, seeded jitter). Every decision is the real {@link RetryRun}'s; only the
 * network is simulated.
 *
 * <p>Scenario: 100 clients, each starting one logical call per second for 15 minutes; every attempt
 * takes 20 ms; the server answers 503 (no Retry-After) from minute 1 to minute 11, and 200
 * otherwise. Measured over the outage: attempts per logical call (amplification) and the share of
 * attempts that are retries. The numbers are written in docs/client.md; this test asserts the
 * documented bounds.
 */
class FleetSimulationTest {
  static final int CLIENTS = 100;
  static final long SIM_SECONDS = 900;
  static final long OUTAGE_START = 60;
  static final long OUTAGE_END = 660;
  static final long LATENCY_MILLIS = 20;

  record FleetTotals(long calls, long attempts, long retries) {
    double amplification() {
      return (double) attempts / calls;
    }

    double retryShare() {
      return (double) retries / attempts;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "calls=%d attempts=%d retries=%d amplification=%.3f retryShare=%.1f%%",
          calls,
          attempts,
          retries,
          amplification(),
          100 * retryShare());
    }
  }

  /**
   * An attempt due at {@code atNanos}: a new call's first ({@code start}), or the next attempt of
   * {@code run}.
   */
  private record DueAttempt(long atNanos, long seq, int client, RetryRun run, boolean start) {}

  /** Runs the scenario; {@code budgets} gives each client its budget (or the same shared one). */
  static FleetTotals simulate(IntFunction<RetryBudget> budgets) {
    FakeTime clock = new FakeTime();
    RecordingLogger silent = RecordingLogger.silent();
    List<RetryPolicy> policies = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      policies.add(
          RetryPolicy.builder()
              .environment(
                  clock.environment().withRandom(RandomSource.seeded(1000 + c)).withLogger(silent))
              .budget(budgets.apply(c))
              .build());
    }
    PriorityQueue<DueAttempt> queue =
        new PriorityQueue<>(
            (a, b) ->
                a.atNanos != b.atNanos
                    ? Long.compare(a.atNanos, b.atNanos)
                    : Long.compare(a.seq, b.seq));
    long seq = 0;
    for (long s = 0; s < SIM_SECONDS; s++) {
      for (int c = 0; c < CLIENTS; c++) {
        queue.add(
            new DueAttempt(
                Duration.ofSeconds(s).plusMillis(c * 10L).toNanos(), seq++, c, null, true));
      }
    }
    long calls = 0;
    long attempts = 0;
    long retries = 0;
    long outageStart = Duration.ofSeconds(OUTAGE_START).toNanos();
    long outageEnd = Duration.ofSeconds(OUTAGE_END).toNanos();
    while (!queue.isEmpty()) {
      DueAttempt e = queue.poll();
      clock.advance(Duration.ofNanos(e.atNanos - clock.nanoTime()));
      RetryRun run = e.run;
      boolean inOutage = e.atNanos >= outageStart && e.atNanos < outageEnd;
      if (e.start) {
        run = new RetryRun(policies.get(e.client), "GET", "GET /sim", null, null);
        if (inOutage) {
          calls++;
        }
      } else if (inOutage) {
        retries++;
      }
      if (run.beginAttempt(null).isEmpty()) {
        continue;
      }
      if (inOutage) {
        attempts++;
      }
      clock.advance(Duration.ofMillis(LATENCY_MILLIS));
      boolean down = e.atNanos >= outageStart && e.atNanos < outageEnd;
      RetryRun.Decision decision =
          run.onResponse(down ? 503 : 200, null, ProblemDetails.NONE, "response");
      if (decision.action() == RetryRun.Action.RETRY) {
        queue.add(
            new DueAttempt(
                clock.nanoTime() + decision.delay().toNanos(), seq++, e.client, run, false));
      }
    }
    return new FleetTotals(calls, attempts, retries);
  }

  /**
   * Without a budget, every call during the outage makes all 3 attempts: the outage triples the
   * load.
   */
  @Test
  void withoutABudgetRetriesAmplifyTheOutage() {
    FleetTotals r = simulate(c -> RetryBudget.unlimited());
    System.out.println("fleet without budget: " + r);
    assertThat(r.calls()).isEqualTo(CLIENTS * (OUTAGE_END - OUTAGE_START));
    assertThat(r.amplification()).isGreaterThan(2.95);
    assertThat(r.retryShare()).isGreaterThan(0.66);
  }

  /**
   * With the default budget per client, each client spends at most 35 transient retries (500 / 14)
   * in the whole outage, then sends only first attempts: retries stay under 10 % of the outage's
   * traffic (documented bound).
   */
  @Test
  void withTheDefaultBudgetRetriesStayUnderTenPercent() {
    FleetTotals r = simulate(c -> TokenBucketRetryBudget.ofDefaults());
    System.out.println("fleet with a budget per client: " + r);
    assertThat(r.retries()).isLessThanOrEqualTo(CLIENTS * 35L);
    assertThat(r.retryShare()).isLessThan(0.10);
    assertThat(r.amplification()).isLessThan(1.10);
  }

  /** One budget shared by the whole fleet caps the outage's retries at 35 in all. */
  @Test
  void aFleetWideBudgetCapsRetriesForEveryone() {
    RetryBudget shared = TokenBucketRetryBudget.ofDefaults();
    FleetTotals r = simulate(c -> shared);
    System.out.println("fleet with one shared budget: " + r);
    assertThat(r.retries()).isLessThanOrEqualTo(35L);
    assertThat(r.retryShare()).isLessThan(0.001);
  }
}
