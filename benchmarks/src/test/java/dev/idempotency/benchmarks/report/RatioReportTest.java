package dev.idempotency.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RatioReportTest {
  private static final String RESULTS =
      """
      [
        {"benchmark": "dev.idempotency.benchmarks.ClaimBenchmark.fresh", "mode": "avgt",
         "params": {"store": "POSTGRESQL"},
         "primaryMetric": {"score": 130.0, "scoreUnit": "us/op", "rawData": [[100.0, 130.0, 900.0]]}},
        {"benchmark": "dev.idempotency.benchmarks.ClaimBenchmark.baselineFresh", "mode": "avgt",
         "params": {"store": "POSTGRESQL"},
         "primaryMetric": {"score": 100.0, "scoreUnit": "us/op", "rawData": [[90.0, 100.0, 400.0]]}},
        {"benchmark": "dev.idempotency.benchmarks.HttpPathBenchmark.fresh", "mode": "thrpt",
         "primaryMetric": {"score": 800.0, "scoreUnit": "ops/s", "rawData": [[800.0]]}},
        {"benchmark": "dev.idempotency.benchmarks.HttpPathBenchmark.baselineFresh", "mode": "thrpt",
         "primaryMetric": {"score": 1000.0, "scoreUnit": "ops/s", "rawData": [[1000.0]]}},
        {"benchmark": "dev.idempotency.benchmarks.SingleStepBenchmark.baseline", "mode": "avgt",
         "params": {"server": "POSTGRESQL_DURABLE"},
         "primaryMetric": {"score": 2000.0, "scoreUnit": "us/op", "rawData": [[2000.0]]}},
        {"benchmark": "dev.idempotency.benchmarks.SingleStepBenchmark.oneTransaction", "mode": "avgt",
         "params": {"server": "POSTGRESQL_DURABLE"},
         "primaryMetric": {"score": 2200.0, "scoreUnit": "us/op", "rawData": [[2200.0]]}},
        {"benchmark": "dev.idempotency.benchmarks.SingleStepBenchmark.twoCommits", "mode": "avgt",
         "params": {"server": "POSTGRESQL_DURABLE"},
         "primaryMetric": {"score": 4100.0, "scoreUnit": "us/op", "rawData": [[4100.0]]}}
      ]
      """;

  /** Medians, not means (one slow iteration does not move them), and always a ratio of times. */
  @Test
  void ratiosAreOfMediansAndOfTimes() {
    String md = RatioReport.markdown(RatioReport.read(RESULTS));
    assertThat(md)
        .contains(
            "| ClaimBenchmark.fresh | store=POSTGRESQL | 130 us/op | 100 us/op | 1.30 | > 1.15 missed |");
    assertThat(md).contains("| HttpPathBenchmark.fresh |  | 800 ops/s | 1000 ops/s | 1.25 | — |");
    assertThat(md).doesNotContain("baselineFresh");
  }

  /**
   * A class whose benchmarks share one plain {@code baseline} has each divided by it; only the
   * single-transaction mode carries a target.
   */
  @Test
  void aSharedBaselineServesEveryBenchmarkOfItsClass() {
    String md = RatioReport.markdown(RatioReport.read(RESULTS));
    assertThat(md)
        .contains(
            "| SingleStepBenchmark.oneTransaction | server=POSTGRESQL_DURABLE | 2200 us/op | 2000 us/op | 1.10 | ≤ 1.15 met |")
        .contains(
            "| SingleStepBenchmark.twoCommits | server=POSTGRESQL_DURABLE | 4100 us/op | 2000 us/op | 2.05 | — |")
        .doesNotContain("SingleStepBenchmark.baseline |");
  }
}
