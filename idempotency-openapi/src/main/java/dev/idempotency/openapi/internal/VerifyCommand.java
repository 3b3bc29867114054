package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.OpenApiCli;
import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** {@code verify}: each operation that claims a harmless retry, sent twice and compared. */
final class VerifyCommand {
  private VerifyCommand() {}

  static int run(CommandLine cl, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    Set<String> ignored = new LinkedHashSet<>(cl.options("--ignore"));
    Commands.Sent<List<ReplayVerifier.Result>> sent =
        Commands.sending(
            cl,
            (target, documents, reports, fromFile) ->
                ReplayVerifier.to(target, ignored).verify(documents, reports, fromFile));
    List<ReplayVerifier.Result> results = sent.results();
    int failed = 0;
    for (ReplayVerifier.Result r : results) {
      out.printf(Locale.ROOT, "%-8s %s%n", r.status(), r.operation());
      for (String d : r.details()) {
        out.println("         " + d);
      }
      if (r.status() == ReplayVerifier.Status.DIFFERS
          || r.status() == ReplayVerifier.Status.UNPROVEN
          || r.status() == ReplayVerifier.Status.ERROR) {
        failed++;
      }
    }
    long skipped =
        results.stream().filter(r -> r.status() == ReplayVerifier.Status.SKIPPED).count();
    out.printf(
        Locale.ROOT,
        "%n%d operations sent twice to %s: %d differ, are unproven or failed, %d skipped.%n",
        results.size() - skipped,
        sent.base(),
        failed,
        skipped);
    if (results.isEmpty()) {
      err.println("openapi-check: no PUT, DELETE or keyed operation to verify");
    }
    return failed > 0 ? OpenApiCli.FAILING : OpenApiCli.OK;
  }
}
