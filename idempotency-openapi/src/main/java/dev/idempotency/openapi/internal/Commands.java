package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.openapi.AuditReport;
import dev.idempotency.openapi.OpenApiAudit;
import dev.idempotency.openapi.OpenApiCli;
import dev.idempotency.openapi.OpenApiReadException;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Outcome;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The commands behind {@link OpenApiCli}. */
public final class Commands {
  static final String USAGE =
      """
      usage: openapi-check <command> <openapi.yaml|.json|directory> [options]

      commands
        check    a verdict for every operation; exit 1 when one fails
        routes   the servlet filter's route table (EndpointRules) from the declared key headers
        verify   send each PUT, DELETE and keyed request twice to a loopback test server and compare

      options (check, routes, verify)
        --header NAME            the key header (default Idempotency-Key)
      options (check)
        --key-convention M,M     these methods take the key without declaring it (e.g. POST)
        --format F               table (default), json or markdown, on standard output
        --out DIR                also write DIR/report.json, DIR/idempotency.md, DIR/routes.txt
        --window D               the replay window the Markdown states (default 24h; 90m, 2d, PT24H)
        --fail-on-warnings       exit 1 on warnings too
      options (routes, check --out)
        --path-prefix /P         prepended to every path of the route table
      options (verify)
        --base-url URL           the test server (loopback only, unless --force)
        --requests FILE          the requests to send, by operation (docs/openapi.md shows the format)
        --request-header 'N: V'  a header on every request (repeatable), e.g. Authorization
        --ignore NAME            a JSON member not compared, at any depth (repeatable), e.g. updatedAt
        --timeout D              per request (default 30s)
        --force                  allow a host that is not loopback (a staging copy you own)

      exit status: 0 nothing failing, 1 failing operations or differing answers,
                   2 unreadable or invalid document, or a malformed command line
      """;

  private Commands() {}

  /** Runs {@code args}; see {@link OpenApiCli#run}. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cl;
    try {
      cl = CommandLine.parse(args);
    } catch (CommandLine.UsageException e) {
      if (!e.problem().isEmpty()) {
        err.println("openapi-check: " + e.problem());
        err.print(USAGE);
        return OpenApiCli.UNUSABLE;
      }
      out.print(USAGE);
      return OpenApiCli.OK;
    }
    try {
      return switch (cl.command()) {
        case "check" -> check(cl, out, err);
        case "routes" -> routes(cl, out, err);
        default -> verify(cl, out, err);
      };
    } catch (OpenApiReadException e) {
      err.println("openapi-check: cannot read " + e.summary());
      for (String m : e.messages()) {
        err.println("  " + m);
      }
      return OpenApiCli.UNUSABLE;
    } catch (IllegalArgumentException e) {
      err.println("openapi-check: " + e.getMessage());
      return OpenApiCli.UNUSABLE;
    } catch (IOException e) {
      err.println("openapi-check: " + e);
      return OpenApiCli.UNUSABLE;
    }
  }

  private static int check(CommandLine cl, PrintStream out, PrintStream err) throws IOException {
    OpenApiAudit audit = audit(cl);
    Duration window = duration(cl.option("--window", "24h"), "--window");
    String format = cl.option("--format", "table");
    if (!Set.of("table", "json", "markdown").contains(format)) {
      throw new IllegalArgumentException("--format is table, json or markdown, not " + format);
    }
    Path input = Path.of(cl.input());
    AuditReport report = audit.audit(input);
    out.print(
        switch (format) {
          case "json" -> report.toJson();
          case "markdown" -> report.toMarkdown(window);
          default -> report.toTable();
        });
    String dir = cl.option("--out");
    if (dir != null) {
      Path outDir = Path.of(dir);
      Files.createDirectories(outDir);
      Files.writeString(outDir.resolve("report.json"), report.toJson(), StandardCharsets.UTF_8);
      Files.writeString(
          outDir.resolve("idempotency.md"), report.toMarkdown(window), StandardCharsets.UTF_8);
      RouteTable.Result routes = routeTable(cl, audit.headerName());
      Files.writeString(outDir.resolve("routes.txt"), routesText(routes), StandardCharsets.UTF_8);
      err.println("openapi-check: wrote report.json, idempotency.md and routes.txt to " + outDir);
    }
    boolean failOnWarnings = cl.flag("--fail-on-warnings");
    Map<Outcome, Integer> outcomes = report.outcomeCounts();
    boolean failing =
        outcomes.getOrDefault(Outcome.FAILING, 0) > 0
            || (failOnWarnings && outcomes.getOrDefault(Outcome.WARNING, 0) > 0);
    return failing ? OpenApiCli.FAILING : OpenApiCli.OK;
  }

  private static int routes(CommandLine cl, PrintStream out, PrintStream err) {
    RouteTable.Result routes = routeTable(cl, cl.option("--header", "Idempotency-Key"));
    out.print(routesText(routes));
    if (routes.rules().isEmpty()) {
      err.println(
          "openapi-check: no operation declares the key header; OpenApiRoutes.from refuses an"
              + " empty table (the filter would keep its default)");
      return OpenApiCli.FAILING;
    }
    return OpenApiCli.OK;
  }

  private static RouteTable.Result routeTable(CommandLine cl, String headerName) {
    return RouteTable.build(
        DocumentReader.read(Path.of(cl.input())), headerName, cl.option("--path-prefix", ""));
  }

  private static String routesText(RouteTable.Result routes) {
    StringBuilder s = new StringBuilder();
    s.append("# the filter's endpoint rules, first match wins (OpenApiRoutes.from gives these)\n");
    for (EndpointRule r : routes.rules()) {
      s.append(r.requirement())
          .append(' ')
          .append(String.join(",", new java.util.TreeSet<>(r.methods())))
          .append(' ')
          .append(r.pathPattern())
          .append('\n');
    }
    for (String note : routes.notes()) {
      s.append("# note: ").append(note).append('\n');
    }
    return s.toString();
  }

  private static int verify(CommandLine cl, PrintStream out, PrintStream err) throws IOException {
    String baseUrl = cl.option("--base-url");
    if (baseUrl == null) {
      throw new IllegalArgumentException("verify needs --base-url, the test server's URL");
    }
    OpenApiAudit audit = audit(cl);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String h : cl.options("--request-header")) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("--request-header is 'Name: value', not \"" + h + "\"");
      }
      headers.put(h.substring(0, colon).strip(), h.substring(colon + 1).strip());
    }
    ReplayVerifier verifier =
        ReplayVerifier.to(
            baseUrl,
            cl.flag("--force"),
            audit.headerName(),
            headers,
            new LinkedHashSet<>(cl.options("--ignore")),
            duration(cl.option("--timeout", "30s"), "--timeout"));
    Map<String, RequestPlanner.Planned> fromFile = Map.of();
    String requests = cl.option("--requests");
    if (requests != null) {
      JsonNode root = new ObjectMapper().readTree(Path.of(requests).toFile());
      fromFile = RequestPlanner.fromFile(root);
    }
    List<DocumentReader.Document> documents = DocumentReader.read(Path.of(cl.input()));
    List<OperationReport> reports = new ArrayList<>();
    OperationAuditor auditor = new OperationAuditor(audit.headerName(), Set.of());
    for (DocumentReader.Document d : documents) {
      reports.addAll(auditor.audit(d.name(), d.api()));
    }
    List<ReplayVerifier.Result> results = verifier.verify(documents, reports, fromFile);
    int differs = 0;
    for (ReplayVerifier.Result r : results) {
      out.printf(Locale.ROOT, "%-8s %s%n", r.status(), r.operation());
      for (String d : r.details()) {
        out.println("         " + d);
      }
      if (r.status() == ReplayVerifier.Status.DIFFERS
          || r.status() == ReplayVerifier.Status.ERROR) {
        differs++;
      }
    }
    out.printf(
        Locale.ROOT,
        "%n%d operations sent twice to %s: %d differ or failed, %d skipped.%n",
        results.stream().filter(r -> r.status() != ReplayVerifier.Status.SKIPPED).count(),
        verifier.base(),
        differs,
        results.stream().filter(r -> r.status() == ReplayVerifier.Status.SKIPPED).count());
    if (results.isEmpty()) {
      err.println("openapi-check: no PUT, DELETE or keyed operation to verify");
    }
    return differs > 0 ? OpenApiCli.FAILING : OpenApiCli.OK;
  }

  private static OpenApiAudit audit(CommandLine cl) {
    OpenApiAudit.Builder b =
        OpenApiAudit.builder().headerName(cl.option("--header", "Idempotency-Key"));
    String convention = cl.option("--key-convention");
    if (convention != null) {
      b.keyConvention(convention.split(","));
    }
    return b.build();
  }

  /** {@code 90s}, {@code 15m}, {@code 24h}, {@code 2d}, or ISO-8601 ({@code PT24H}); positive. */
  static Duration duration(String text, String option) {
    Duration d;
    try {
      if (text.matches("\\d{1,9}[smhd]")) {
        long n = Long.parseLong(text.substring(0, text.length() - 1));
        d =
            switch (text.charAt(text.length() - 1)) {
              case 's' -> Duration.ofSeconds(n);
              case 'm' -> Duration.ofMinutes(n);
              case 'h' -> Duration.ofHours(n);
              default -> Duration.ofDays(n);
            };
      } else {
        d = Duration.parse(text);
      }
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          option + " is a duration such as 30s, 15m, 24h, 2d or PT24H, not \"" + text + "\"", e);
    }
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(option + " must be positive, not " + text);
    }
    return d;
  }
}
