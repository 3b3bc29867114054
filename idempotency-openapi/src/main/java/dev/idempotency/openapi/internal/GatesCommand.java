package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OpenApiCli;
import dev.idempotency.openapi.OperationReport;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code gates}: the gates against a live test server, per keyed operation, and the summary. */
final class GatesCommand {
  private GatesCommand() {}

  static int run(CommandLine cl, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    LiveGates.Settings gates = settings(cl, AuditSettings.from(cl));
    Commands.Sent<List<LiveGates.OperationResult>> sent =
        Commands.sending(
            cl,
            (target, documents, reports, fromFile) ->
                new LiveGates(target, gates, d -> Thread.sleep(d.toMillis()))
                    .run(documents, reports, fromFile));
    List<LiveGates.OperationResult> results = sent.results();
    print(results, out);
    Map<GateResult.Status, Integer> counts = new EnumMap<>(GateResult.Status.class);
    for (LiveGates.OperationResult r : results) {
      for (GateResult g : r.gates()) {
        counts.merge(g.status(), 1, Integer::sum);
      }
    }
    long skipped = results.stream().filter(r -> r.skipped() != null).count();
    out.printf(
        Locale.ROOT,
        "%n%d keyed operations gated at %s: %d gates passed, %d failed, %d errors, %d"
            + " inconclusive, %d not tested; %d operations skipped.%n",
        results.size() - skipped,
        sent.base(),
        counts.getOrDefault(GateResult.Status.PASS, 0),
        counts.getOrDefault(GateResult.Status.FAIL, 0),
        counts.getOrDefault(GateResult.Status.ERROR, 0),
        counts.getOrDefault(GateResult.Status.INCONCLUSIVE, 0),
        counts.getOrDefault(GateResult.Status.NOT_TESTED, 0),
        skipped);
    if (results.isEmpty()) {
      err.println("openapi-check: no operation takes a key: nothing to gate");
    }
    boolean failed =
        counts.getOrDefault(GateResult.Status.FAIL, 0)
                + counts.getOrDefault(GateResult.Status.ERROR, 0)
            > 0;
    return failed ? OpenApiCli.FAILING : OpenApiCli.OK;
  }

  private static LiveGates.Settings settings(CommandLine cl, AuditSettings audit) {
    int concurrency;
    String n = cl.option("--concurrency", "16");
    try {
      concurrency = Integer.parseInt(n);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--concurrency is a number, not \"" + n + "\"", e);
    }
    Set<Gate> selected = EnumSet.noneOf(Gate.class);
    String only = cl.option("--gates");
    if (only != null) {
      for (String id : only.split(",", -1)) {
        Gate g = Gate.byId(id.strip());
        if (g == null) {
          throw new IllegalArgumentException(
              "--gates names replay, mismatch, concurrent, in_flight, key_syntax or window, not \""
                  + id.strip()
                  + "\"");
        }
        selected.add(g);
      }
    }
    String window = cl.option("--window");
    Duration timeout = Commands.duration(cl.option("--timeout", "30s"), "--timeout");
    return new LiveGates.Settings(
        concurrency,
        window == null ? null : Commands.duration(window, "--window"),
        selected,
        audit.origin(),
        timeout.toMillis());
  }

  private static void print(List<LiveGates.OperationResult> results, PrintStream out) {
    for (LiveGates.OperationResult r : results) {
      OperationReport o = r.report();
      KeyDeclaration k = o.key();
      out.println(
          o.name()
              + (o.operationId() == null ? "" : " (" + o.operationId() + ")")
              + (k == null
                  ? ""
                  : ": key in the "
                      + (k.location() == KeyDeclaration.Location.HEADER
                          ? "header "
                          : "body property ")
                      + k.name()));
      if (r.skipped() != null) {
        out.println("  SKIPPED       " + r.skipped());
      }
      for (GateResult g : r.gates()) {
        out.printf(Locale.ROOT, "  %-13s %-11s %s%n", g.status(), g.gate().id(), g.detail());
        if (g.revealsAntiPattern()) {
          out.printf(
              Locale.ROOT,
              "  %-13s %-11s reveals %s (docs/anti-patterns.md)%n",
              "",
              "",
              g.gate().reveals());
        }
      }
    }
  }
}
