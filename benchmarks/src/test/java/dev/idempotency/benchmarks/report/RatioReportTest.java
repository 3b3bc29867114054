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
         "primaryMetric": {"score": 1000.0, "scoreUnit": "ops/s", "rawData": [[1000.0]]}}
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
}
