package dev.idempotency.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * One very short in-process pass of every benchmark, so that none can rot: each must set up, run
 * and produce a score. It measures nothing worth reading; the numbers come from {@code
 * benchmarks/run.sh}.
 */
class BenchmarksSmokeTest {
  @Test
  void everyBenchmarkRunsOnce() throws Exception {
    Options options =
        new OptionsBuilder()
            .include("dev\\.idempotency\\.benchmarks\\..*")
            .param(
                "store",
                "IN_MEMORY",
                "H2") // H2 stands for the JDBC fixture, embedded: no server needed
            .param("existing", "10000")
            .param("server", "H2")
            .param("inFlight", "100")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(100))
            .threads(1)
            .shouldFailOnError(true)
            .build();
    Collection<RunResult> results = new Runner(options).run();
    assertThat(results)
        .extracting(r -> r.getParams().getBenchmark())
        .anyMatch(b -> b.endsWith("ClaimBenchmark.fresh"))
        .anyMatch(b -> b.endsWith("ContendedClaimBenchmark.contended"))
        .anyMatch(b -> b.endsWith("EngineBenchmark.engineFresh"))
        .anyMatch(b -> b.endsWith("ScaleBenchmark.claimAndRelease"))
        .anyMatch(b -> b.endsWith("ReaperBenchmark.deleteBatch"))
        .anyMatch(b -> b.endsWith("FingerprintBenchmark.fingerprint"))
        .anyMatch(b -> b.endsWith("HttpPathBenchmark.fresh"))
        .anyMatch(b -> b.endsWith("SingleStepBenchmark.twoCommits"))
        .anyMatch(b -> b.endsWith("SingleStepBenchmark.oneTransaction"))
        .anyMatch(b -> b.endsWith("HeartbeatBenchmark.tick"));
    assertThat(results)
        .extracting(r -> r.getParams().getParam("store"))
        .contains("IN_MEMORY", "H2");
    assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getScore()).isPositive());
  }
}
