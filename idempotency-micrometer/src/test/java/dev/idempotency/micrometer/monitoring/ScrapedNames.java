package dev.idempotency.micrometer.monitoring;

import dev.idempotency.micrometer.IdempotencyMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What a real {@link PrometheusMeterRegistry} scrape of {@link IdempotencyMetrics} names, and the
 * metric names the shipped monitoring files query: the ground truth the rules and the dashboard are
 * checked against.
 */
final class ScrapedNames {
  static final Path RULES = Path.of("src/main/monitoring/prometheus/idempotency-rules.yml");
  static final Path DASHBOARD = Path.of("src/main/monitoring/grafana/idempotency-dashboard.json");

  private static final Pattern METRIC = Pattern.compile("\\bidempotency_[a-z0-9_]+");
  private static final Pattern RECORDED = Pattern.compile("\\bidempotency:[a-z0-9_:]+");
  private static final Pattern RECORD = Pattern.compile("(?m)^\\s*- record:\\s*(\\S+)\\s*$");
  private static final Pattern TYPE = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$");

  /** The names of the samples one scrape holds, and the families its TYPE lines declare. */
  record Scrape(String text, Set<String> samples, Set<String> families) {
    /** The value of the sample {@code name} whose tag {@code tag} is {@code value}, or null. */
    @Nullable Double valueOf(String name, String tag, String value) {
      for (String line : text.split("\n")) {
        if (line.startsWith(name + "{") && line.contains(tag + "=\"" + value + "\"")) {
          return Double.valueOf(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return null;
    }
  }

  private ScrapedNames() {}

  /** Scrapes a registry holding nothing but the library's meters, as registered at start. */
  static Scrape scrape() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try {
      IdempotencyMetrics.create(registry);
      String text = registry.scrape();
      Set<String> samples = new TreeSet<>();
      for (String line : text.split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          samples.add(line.split("[{ ]", 2)[0]);
        }
      }
      Set<String> families = new TreeSet<>();
      Matcher types = TYPE.matcher(text);
      while (types.find()) {
        families.add(types.group(1));
      }
      return new Scrape(text, samples, families);
    } finally {
      registry.close();
    }
  }

  /** The {@code idempotency_…} metric names in {@code text}. */
  static Set<String> metricsIn(String text) {
    return matches(METRIC, text);
  }

  /** The {@code idempotency:…} recording-rule names in {@code text}. */
  static Set<String> recordedIn(String text) {
    return matches(RECORDED, text);
  }

  /** The names the rules file records. */
  static Set<String> recordedByTheRules() throws IOException {
    Set<String> records = new TreeSet<>();
    Matcher m = RECORD.matcher(Files.readString(RULES));
    while (m.find()) {
      records.add(m.group(1));
    }
    return records;
  }

  /** The rules file without its comment lines: what Prometheus evaluates. */
  static String rulesWithoutComments() throws IOException {
    StringBuilder kept = new StringBuilder();
    for (String line : Files.readAllLines(RULES)) {
      if (!line.stripLeading().startsWith("#")) {
        kept.append(line).append('\n');
      }
    }
    return kept.toString();
  }

  private static Set<String> matches(Pattern pattern, String text) {
    Set<String> found = new TreeSet<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }
}
