package dev.idempotency.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One very short pass of the durable benchmarks on the test servers (not durable: nothing here is a
 * figure), so that neither can rot: each runs every kind, writes its report, and checks in the
 * database that every key committed one business row (it throws otherwise). The figures come from
 * {@code benchmarks/durable-single-step.sh} and {@code benchmarks/durable-contended.sh}.
 */
@Timeout(180)
class DurableBenchmarksIT {
  @ParameterizedTest
  @EnumSource(
      value = OrdersServer.class,
      names = {"POSTGRESQL", "MARIADB"})
  void theSingleStepBenchmarkRunsEveryKindAndFindsOneRowPerKey(
      OrdersServer server, @TempDir Path dir) throws Exception {
    Path out = dir.resolve("single-step.md");
    DurableSingleStep.main(new String[] {server.name(), "1", "1", "50", out.toString()});
    String report = Files.readString(out);
    for (DurableSingleStep.Kind k : DurableSingleStep.Kind.values()) {
      assertThat(report).contains("| " + k.label + " |");
    }
    assertThat(report).contains("Every key committed one row.");
  }

  @ParameterizedTest
  @EnumSource(
      value = OrdersServer.class,
      names = {"POSTGRESQL", "MARIADB"})
  void theContendedBenchmarkRunsEveryKindAndFindsOneRowPerKey(
      OrdersServer server, @TempDir Path dir) throws Exception {
    Path out = dir.resolve("contended.md");
    DurableContended.main(new String[] {server.name(), "1", "5", out.toString()});
    String report = Files.readString(out);
    for (DurableContended.Kind k : DurableContended.Kind.values()) {
      String row =
          report
              .lines()
              .filter(l -> l.startsWith("| " + k.label + " |"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no row for " + k.label + " in\n" + report));
      String[] cells = row.split("\\|");
      // every one of the eight callers sends at least one statement, and the key commits its row
      assertThat(Double.parseDouble(cells[8].trim()))
          .as(k + " round trips per key")
          .isGreaterThanOrEqualTo(8);
      assertThat(Double.parseDouble(cells[9].trim()))
          .as(k + " commits per key")
          .isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void eachPaymentKindIsMeasuredAgainstThePaymentsFloor() {
    for (DurableSingleStep.Kind k : DurableSingleStep.Kind.values()) {
      assertThat(k.floor() == DurableSingleStep.Kind.PAY_FLOOR).as(k.name()).isEqualTo(k.payment());
    }
  }
}
