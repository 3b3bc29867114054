package dev.idempotency.micrometer.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped Prometheus rules pass {@code promtool check rules}, and their unit tests ({@code
 * src/test/prometheus}: series that fire each alert and series that do not) pass {@code promtool
 * test rules}. promtool is Debian's {@code prometheus} package, which {@code scripts/services.sh}
 * installs; in CI ({@code CI=true}) a missing promtool fails, elsewhere these tests are skipped
 * with a message.
 */
class PrometheusRulesTest {
  private static final Path TESTS = Path.of("src/test/prometheus");
  private static final long DEADLINE_SECONDS = 90;

  private static Path promtool;

  @BeforeAll
  static void findPromtool() {
    promtool = DebianBinaries.required("promtool");
  }

  @Test
  void theRulesPassPromtoolsCheck() throws Exception {
    Run run = promtool(Path.of("."), "check", "rules", ScrapedNames.RULES.toString());
    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("SUCCESS: 5 rules found");
  }

  @Test
  void theDuplicateRiskAlarmFiresOnOneEventAndNotOnARestart() throws Exception {
    Run run = promtool(TESTS, "test", "rules", "idempotency-rules.test.yml");
    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("SUCCESS");
  }

  @Test
  void theOrphanedKeyTicketFiresAboveTheBaselineAndNotForASteadyRateOrAFewKeys() throws Exception {
    Run run = promtool(TESTS, "test", "rules", "idempotency-orphaned.test.yml");
    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("SUCCESS");
  }

  /**
   * The unit tests catch a broken rule: with the page's threshold raised from "any event" to "more
   * than one", the series of one event no longer fires, and promtool says so.
   */
  @Test
  void theRuleTestsFailARuleThatNoLongerPagesOnOneEvent(@TempDir Path dir) throws Exception {
    String rules = Files.readString(ScrapedNames.RULES);
    String broken = rules.replace("[10m])) > 0", "[10m])) > 1");
    assertThat(broken).isNotEqualTo(rules);
    Files.writeString(dir.resolve("idempotency-rules.yml"), broken);
    String tests = Files.readString(TESTS.resolve("idempotency-rules.test.yml"));
    Files.writeString(
        dir.resolve("idempotency-rules.test.yml"),
        tests.replace(
            "../../main/monitoring/prometheus/idempotency-rules.yml", "idempotency-rules.yml"));

    Run run = promtool(dir, "test", "rules", "idempotency-rules.test.yml");
    assertThat(run.exitCode()).as(run.output()).isNotZero();
    assertThat(run.output()).contains("FAILED").contains("IdempotencyDuplicateRisk");
  }

  private record Run(int exitCode, String output) {}

  /** Runs promtool in {@code dir}, killed if it outlives the deadline. */
  private static Run promtool(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(promtool.toString());
    command.addAll(List.of(args));
    Path output = Files.createTempFile("promtool", ".out");
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      if (!process.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
        fail("promtool " + String.join(" ", args) + " ran past " + DEADLINE_SECONDS + " s");
      }
      return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(output);
    }
  }
}
