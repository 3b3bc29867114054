package dev.idempotency.examples;

import dev.idempotency.testing.Fault;
import dev.idempotency.testing.RandomFaults;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The report the demo ends with: one column per run, side by side. */
final class DemoReport {
  /** One finished run: what the clients saw, what the proxy did, what the card network charged. */
  record Run(
      String title,
      RunStats stats,
      long attemptsAtWire,
      Map<Fault, Long> faults,
      long charges,
      long paymentsCharged,
      long duplicateCharges,
      double seconds) {}

  /** The faults the demo's injector makes, in the report's words, in the report's order. */
  private static final Map<Fault, String> FAULTS = faultLabels();

  private DemoReport() {}

  private static Map<Fault, String> faultLabels() {
    Map<Fault, String> labels = new LinkedHashMap<>();
    labels.put(Fault.FORWARD_THEN_DROP, "drop after processing");
    labels.put(Fault.FORWARD_SLOWED_THEN_DROP, "drop during processing");
    labels.put(Fault.RESET_WITHOUT_FORWARDING, "reset before processing");
    labels.put(Fault.FORWARD_THEN_RESET, "reset after processing");
    labels.put(Fault.ANSWER_503, "burst 503");
    labels.put(Fault.ANSWER_429, "burst 429");
    return labels;
  }

  static String render(DemoOptions options, String store, List<Run> runs) {
    StringBuilder out = new StringBuilder();
    RandomFaults.Rates f = options.faults();
    out.append(
        String.format(
            Locale.ROOT,
            "%nPayments demo: %d clients x %d payments through a fault injector (drop after processing %.0f %%,"
                + " slow then dropped %.0f %%, reset %.0f %%, 503/429 bursts %.0f %% x %d), store: %s%n%n",
            options.clients(),
            options.paymentsPerClient(),
            f.dropAfter() * 100,
            f.slow() * 100,
            f.reset() * 100,
            f.burst() * 100,
            f.burstLength(),
            store));
    Map<String, List<String>> rows = new LinkedHashMap<>();
    for (Run run : runs) {
      RunStats s = run.stats();
      add(rows, "payments requested", s.payments.sum());
      add(rows, "payments succeeded", s.succeeded.sum());
      add(rows, "payments failed", s.failed.sum());
      add(rows, "attempts at the wire", run.attemptsAtWire());
      add(rows, "retries", s.retries());
      add(rows, "replays (Idempotent-Replayed)", s.replays.sum());
      add(rows, "in-flight conflicts (409)", s.inFlightConflicts.sum());
      add(rows, "charges executed", run.charges());
      add(rows, "DUPLICATE CHARGES", run.duplicateCharges());
      // charged, but every response was lost and the client gave up: a later retry with the same
      // key replays it
      add(
          rows,
          "charged, client gave up before its answer",
          Math.max(0, run.paymentsCharged() - s.succeeded.sum()));
      add(rows, "latency p50 (ms)", String.format(Locale.ROOT, "%.1f", s.percentileMillis(50)));
      add(rows, "latency p95 (ms)", String.format(Locale.ROOT, "%.1f", s.percentileMillis(95)));
      add(rows, "latency p99 (ms)", String.format(Locale.ROOT, "%.1f", s.percentileMillis(99)));
      add(rows, "time (s)", String.format(Locale.ROOT, "%.1f", run.seconds()));
    }
    // failure reasons and retry causes differ per run: give every run a cell in every such row
    Set<String> causes = new LinkedHashSet<>();
    Set<String> failures = new LinkedHashSet<>();
    runs.forEach(r -> failures.addAll(r.stats().failuresSorted().keySet()));
    runs.forEach(r -> causes.addAll(r.stats().retriesByCauseSorted().keySet()));
    List<String> header = new ArrayList<>();
    header.add("");
    runs.forEach(r -> header.add(r.title()));
    List<List<String>> table = new ArrayList<>();
    table.add(header);
    for (Map.Entry<String, List<String>> row : rows.entrySet()) {
      List<String> line = new ArrayList<>();
      line.add(row.getKey());
      line.addAll(row.getValue());
      table.add(line);
      if (row.getKey().equals("payments failed")) {
        for (String reason : failures) {
          List<String> c = new ArrayList<>();
          c.add("  " + reason);
          runs.forEach(
              r -> c.add(String.valueOf(r.stats().failuresSorted().getOrDefault(reason, 0L))));
          table.add(c);
        }
      }
      if (row.getKey().equals("retries")) {
        for (String cause : causes) {
          List<String> c = new ArrayList<>();
          c.add("  " + cause);
          runs.forEach(
              r -> c.add(String.valueOf(r.stats().retriesByCauseSorted().getOrDefault(cause, 0L))));
          table.add(c);
        }
      }
    }
    List<String> faultHeader = new ArrayList<>();
    faultHeader.add("faults injected");
    runs.forEach(r -> faultHeader.add(""));
    table.add(faultHeader);
    FAULTS.forEach(
        (fault, label) -> {
          List<String> line = new ArrayList<>();
          line.add("  " + label);
          runs.forEach(r -> line.add(String.valueOf(r.faults().getOrDefault(fault, 0L))));
          table.add(line);
        });
    int[] widths = new int[header.size()];
    for (List<String> line : table) {
      for (int i = 0; i < line.size(); i++) {
        widths[i] = Math.max(widths[i], line.get(i).length());
      }
    }
    for (List<String> line : table) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < line.size(); i++) {
        String cell = line.get(i);
        sb.append(
            i == 0
                ? String.format("%-" + widths[0] + "s", cell)
                : String.format("   %" + widths[i] + "s", cell));
      }
      out.append(sb.toString().stripTrailing()).append('\n');
    }
    out.append('\n').append(closing(runs));
    return out.toString();
  }

  /**
   * What the table says, in sentences: the guarantee, what the run without the library did, and why
   * the library's latency tail is longer.
   */
  static String closing(List<Run> runs) {
    Run on = runs.get(0);
    long lost =
        on.faults().getOrDefault(Fault.FORWARD_THEN_DROP, 0L)
            + on.faults().getOrDefault(Fault.FORWARD_SLOWED_THEN_DROP, 0L)
            + on.faults().getOrDefault(Fault.FORWARD_THEN_RESET, 0L);
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "Effectively once within the key's scope (the client) and the replay window (24 h): %d"
                + " answers were lost after the charge, every retry carried its payment's key, and"
                + " %d duplicate charges followed.%n",
            lost,
            on.duplicateCharges()));
    if (runs.size() > 1) {
      Run off = runs.get(1);
      s.append(
          String.format(
              Locale.ROOT,
              "Without the library the same faults charged %d payments twice or more: a retry of a"
                  + " lost answer ran the charge again.%n",
              off.duplicateCharges()));
      s.append(
          "The library's latency tail is longer on purpose: a retry that arrives while its first"
              + " attempt still runs is told to wait (409 in flight with Retry-After, then the"
              + " replay) instead of charging again at once.\n");
    } else {
      s.append(
          "Run it with --compare to send the same traffic without the library and count the"
              + " duplicate charges.\n");
    }
    return s.toString();
  }

  private static void add(Map<String, List<String>> rows, String name, Object value) {
    rows.computeIfAbsent(name, k -> new ArrayList<>()).add(String.valueOf(value));
  }
}
