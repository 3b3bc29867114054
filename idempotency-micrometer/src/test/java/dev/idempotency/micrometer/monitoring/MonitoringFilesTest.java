package dev.idempotency.micrometer.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The shipped Prometheus rules and Grafana dashboard query only metrics that the library's meters
 * register, by the names a real Prometheus scrape gives them, and the dashboard shows every one:
 * renaming a meter, or a typo in a file, fails here.
 */
class MonitoringFilesTest {
  private static final ScrapedNames.Scrape SCRAPE = ScrapedNames.scrape();

  @Test
  void theScrapeNamesTheAlarmsAsTheRulesExpectWithEveryCauseAtZeroFromTheStart() {
    for (String cause :
        List.of("takeover_without_recovery_point", "completion_failed", "lease_lost_after_work")) {
      assertThat(SCRAPE.valueOf("idempotency_duplicate_risk_total", "cause", cause))
          .as(cause)
          .isEqualTo(0.0);
    }
    for (String foundBy : List.of("takeover", "reaper")) {
      assertThat(SCRAPE.valueOf("idempotency_orphaned_total", "found_by", foundBy))
          .as(foundBy)
          .isEqualTo(0.0);
    }
  }

  @Test
  void everyMetricTheRulesQueryIsOneTheMetersRegister() throws IOException {
    Set<String> queried = ScrapedNames.metricsIn(ScrapedNames.rulesWithoutComments());
    assertThat(queried)
        .contains("idempotency_duplicate_risk_total", "idempotency_orphaned_total")
        .isSubsetOf(SCRAPE.samples());
  }

  @Test
  void everyMetricTheDashboardQueriesIsRegisteredOrRecordedByTheRules() throws IOException {
    String queries = String.join("\n", dashboardQueries());
    assertThat(ScrapedNames.metricsIn(queries)).isNotEmpty().isSubsetOf(SCRAPE.samples());
    assertThat(ScrapedNames.recordedIn(queries))
        .isNotEmpty()
        .isSubsetOf(ScrapedNames.recordedByTheRules());
  }

  @Test
  void theDashboardShowsEveryMetricFamilyTheLibraryRegisters() throws IOException {
    Set<String> queried = ScrapedNames.metricsIn(String.join("\n", dashboardQueries()));
    Set<String> missing = new TreeSet<>();
    for (String family : SCRAPE.families()) {
      boolean shown =
          queried.stream().anyMatch(q -> q.equals(family) || q.startsWith(family + "_"));
      if (!shown) {
        missing.add(family);
      }
    }
    assertThat(SCRAPE.families()).hasSizeGreaterThanOrEqualTo(12);
    assertThat(missing).as("metric families no panel shows").isEmpty();
  }

  /** Each alert's runbook annotation names a section that docs/operations.md has. */
  @Test
  void theRunbooksTheAlertsNameAreSectionsOfTheOperationsPage() throws IOException {
    String operations = Files.readString(Path.of("../docs/operations.md"));
    Matcher runbook =
        Pattern.compile("runbook: \"docs/operations\\.md, section (\\d+): (.+)\"")
            .matcher(Files.readString(ScrapedNames.RULES));
    int found = 0;
    while (runbook.find()) {
      found++;
      String title = runbook.group(2);
      String heading =
          "## "
              + runbook.group(1)
              + ". "
              + Character.toUpperCase(title.charAt(0))
              + title.substring(1);
      assertThat(operations)
          .as("docs/operations.md")
          .containsPattern("(?m)^" + Pattern.quote(heading) + "$");
    }
    assertThat(found).as("alerts with a runbook").isEqualTo(2);
  }

  @Test
  void everyPanelQueriesSomething() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(ScrapedNames.DASHBOARD));
    List<String> empty = new ArrayList<>();
    for (JsonNode panel : dashboard.get("panels")) {
      if (panel.get("type").asString().equals("row")) {
        continue;
      }
      boolean queries = false;
      for (JsonNode target : panel.path("targets")) {
        queries |= !target.path("expr").asString("").isBlank();
      }
      if (!queries) {
        empty.add(panel.get("title").asString());
      }
    }
    assertThat(dashboard.get("panels")).isNotEmpty();
    assertThat(empty).as("panels without a query").isEmpty();
  }

  /** Every PromQL string of the dashboard: panel targets and template variable queries. */
  private static List<String> dashboardQueries() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(ScrapedNames.DASHBOARD));
    List<String> queries = new ArrayList<>();
    collect(dashboard, queries);
    return queries;
  }

  private static void collect(JsonNode node, List<String> queries) {
    if (node.isArray()) {
      for (JsonNode element : node) {
        collect(element, queries);
      }
      return;
    }
    for (var field : node.properties()) {
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (value.isString()
          && (name.equals("expr") || name.equals("query") || name.equals("definition"))) {
        queries.add(value.asString());
      } else if (value.isContainer()) {
        collect(value, queries);
      }
    }
  }
}
