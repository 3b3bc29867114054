package dev.idempotency.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The simulation reproduces the shape of Brooker's comparison (seeded, so these are exact, not
 * timed).
 */
class RetryStormSimulationTest {
  private static RetryStormSimulation.Result mean(Jitter jitter, int clients) {
    long calls = 0;
    double time = 0;
    for (int run = 0; run < RetryStormSimulation.RUNS; run++) {
      RetryStormSimulation.Result r =
          RetryStormSimulation.simulate(jitter, clients, 31L * run + clients);
      calls += r.calls();
      time += r.millisToFinish();
    }
    return new RetryStormSimulation.Result(
        calls / RetryStormSimulation.RUNS, time / RetryStormSimulation.RUNS);
  }

  @Test
  void everyClientFinallySucceedsAndCallsGrowWithContention() {
    assertThat(RetryStormSimulation.simulate(Jitter.FULL, 1, 1).calls()).isEqualTo(1);
    assertThat(mean(Jitter.FULL, 100).calls()).isGreaterThan(mean(Jitter.FULL, 10).calls());
  }

  @Test
  void noJitterIsTheClearLoser() {
    // lockstep retries: one winner per round, so calls grow with the square of the clients
    assertThat(mean(Jitter.NONE, 100).calls()).isEqualTo(100 * 101 / 2);
    assertThat(mean(Jitter.NONE, 100).calls()).isGreaterThan(5 * mean(Jitter.FULL, 100).calls());
  }

  @Test
  void equalJitterTakesLongerThanFullJitterForNoLessWork() {
    RetryStormSimulation.Result equal = mean(Jitter.EQUAL, 100);
    RetryStormSimulation.Result full = mean(Jitter.FULL, 100);
    assertThat(equal.millisToFinish()).isGreaterThan(full.millisToFinish());
    assertThat(equal.calls()).isGreaterThanOrEqualTo(full.calls());
  }

  @Test
  void decorrelatedFinishesSoonerThanFullJitterForMoreWork() {
    RetryStormSimulation.Result decorrelated = mean(Jitter.DECORRELATED, 100);
    RetryStormSimulation.Result full = mean(Jitter.FULL, 100);
    assertThat(decorrelated.millisToFinish()).isLessThan(full.millisToFinish());
    assertThat(decorrelated.calls()).isGreaterThan(full.calls());
  }
}
