package dev.idempotency.benchmarks.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads JMH JSON results and writes the table of ratios the docs publish: for every benchmark
 * {@code x} with a sibling {@code baselineX} in the same class and with the same parameters, our
 * time over the baseline's time, each the median of its iterations, both measured in the same run.
 * For throughput scores (operations per second) the ratio is inverted, so that it is always a ratio
 * of times: above 1 means slower than the baseline.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.idempotency.benchmarks.report.RatioReport
 * results.json out.md}
 */
public final class RatioReport {
  /** The published targets: at most this ratio, per store family. */
  static final double DATABASE_TARGET = 1.15;

  static final double IN_MEMORY_TARGET = 1.5;

  private RatioReport() {}

  /**
   * One measured benchmark: class, method, parameters, unit, and the median of its iteration
   * scores.
   */
  record Row(
      String benchmarkClass,
      String method,
      Map<String, String> params,
      String mode,
      String unit,
      double median,
      List<Double> iterations) {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: RatioReport <jmh-results.json> <out.md>");
      System.exit(2);
    }
    List<Row> rows = read(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8));
    String table = markdown(rows);
    Files.writeString(Path.of(args[1]), table, StandardCharsets.UTF_8);
    System.out.print(table);
  }

  @SuppressWarnings("unchecked")
  static List<Row> read(String json) {
    List<Row> rows = new ArrayList<>();
    for (Object o : (List<Object>) JmhResultJson.parse(json)) {
      Map<String, Object> result = (Map<String, Object>) o;
      String benchmark = (String) result.get("benchmark");
      int dot = benchmark.lastIndexOf('.');
      String cls = benchmark.substring(benchmark.lastIndexOf('.', dot - 1) + 1, dot);
      Map<String, String> params = new TreeMap<>();
      Object p = result.get("params");
      if (p instanceof Map<?, ?> map) {
        map.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
      }
      Map<String, Object> primary = (Map<String, Object>) result.get("primaryMetric");
      List<Double> scores = new ArrayList<>();
      Object raw = primary.get("rawData");
      if (raw instanceof List<?> forks) {
        for (Object fork : forks) {
          for (Object score : (List<Object>) fork) {
            scores.add((Double) score);
          }
        }
      }
      double median =
          scores.isEmpty()
              ? (Double) primary.get("score")
              : median(scores.stream().mapToDouble(Double::doubleValue).toArray());
      rows.add(
          new Row(
              cls,
              benchmark.substring(dot + 1),
              params,
              (String) result.get("mode"),
              (String) primary.get("scoreUnit"),
              median,
              List.copyOf(scores)));
    }
    return rows;
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The Markdown table: one line per (class, benchmark, parameters) that has a baseline. */
  static String markdown(List<Row> rows) {
    Map<String, Row> byKey = new LinkedHashMap<>();
    for (Row r : rows) {
      byKey.put(key(r.benchmarkClass, r.method, r.params, r.mode), r);
    }
    StringBuilder md = new StringBuilder();
    md.append(
        "| benchmark | parameters | ours (median) | baseline (median) | time ratio | target |\n");
    md.append("|---|---|---:|---:|---:|---|\n");
    for (Row ours : rows) {
      if (ours.method.startsWith("baseline")) {
        continue;
      }
      String baselineName =
          "baseline" + Character.toUpperCase(ours.method.charAt(0)) + ours.method.substring(1);
      Row base = byKey.get(key(ours.benchmarkClass, baselineName, ours.params, ours.mode));
      if (base == null) {
        // a class whose benchmarks share one baseline names it plain "baseline"
        base = byKey.get(key(ours.benchmarkClass, "baseline", ours.params, ours.mode));
      }
      if (base == null) {
        continue;
      }
      boolean throughput = "thrpt".equals(ours.mode);
      double ratio = throughput ? base.median / ours.median : ours.median / base.median;
      String verdict =
          target(ours)
              .map(
                  target ->
                      (ratio <= target ? "≤ " : "> ")
                          + format(target)
                          + (ratio <= target ? " met" : " missed"))
              .orElse("—");
      md.append(
          String.format(
              Locale.ROOT,
              "| %s.%s | %s | %s %s | %s %s | %.2f | %s |%n",
              ours.benchmarkClass,
              ours.method,
              params(ours.params),
              format(ours.median),
              ours.unit,
              format(base.median),
              base.unit,
              ratio,
              verdict));
    }
    return md.toString();
  }

  /**
   * The published target of a row, if it has one: the claim benchmarks' per store family, and the
   * single-transaction mode's against a bare single-step write.
   */
  static Optional<Double> target(Row ours) {
    if (ours.benchmarkClass.endsWith("ClaimBenchmark")) {
      String store = ours.params.getOrDefault("store", "IN_MEMORY");
      return Optional.of(store.equals("IN_MEMORY") ? IN_MEMORY_TARGET : DATABASE_TARGET);
    }
    if (ours.benchmarkClass.equals("SingleStepBenchmark") && ours.method.equals("oneTransaction")) {
      return Optional.of(DATABASE_TARGET);
    }
    return Optional.empty();
  }

  private static String key(String cls, String method, Map<String, String> params, String mode) {
    return cls + "." + method + params + mode;
  }

  private static String params(Map<String, String> params) {
    if (params.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    params.forEach(
        (k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append('=').append(v));
    return sb.toString();
  }

  private static String format(double v) {
    return v >= 100
        ? String.format(Locale.ROOT, "%.0f", v)
        : v >= 1 ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.3f", v);
  }
}
