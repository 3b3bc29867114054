package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.openapi.ApiOrigin;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The commands behind {@link OpenApiCli}. */
public final class Commands {
  static final String USAGE =
      """
      usage: openapi-check <command> <openapi.yaml|.json|directory> [options]

      commands
        check    a verdict for every operation; exit 1 when one fails
        routes   the servlet filter's route table (EndpointRules) from the declared key headers
        verify   send each PUT, DELETE and keyed request twice to a loopback test server and compare
        gates    run the idempotency gates (concurrent duplicates, reused key, replay, in flight,
                 malformed keys, window) against a loopback test server, per keyed operation

      options (check, routes, verify, gates)
        --header NAME            the key header (default Idempotency-Key)
        --lenient                audit what the parser could read; list what it could not
      options (check, verify, gates)
        --third-party            someone else's API: only its document's rules, not this library's
        --overlay FILE           your verdicts on its operations (safe, keyed, unsafe, with reasons)
        --key-convention M,M     these methods take the key without declaring it (e.g. POST)
      options (check)
        --format F               table (default), json or markdown, on standard output
        --out DIR                also write DIR/report.json, DIR/idempotency.md, DIR/routes.txt
        --window D               the replay window the Markdown states (default 24h; 90m, 2d, PT24H)
        --fail-on-warnings       exit 1 on warnings too
      options (routes, check --out)
        --path-prefix /P         prepended to every path of the route table
      options (verify, gates)
        --base-url URL           the test server (loopback only, unless --force)
        --requests FILE          the requests to send, by operation (docs/openapi.md shows the format)
        --request-header 'N: V'  a header on every request (repeatable), e.g. Authorization
        --timeout D              per request (default 30s)
        --force                  allow a host that is not loopback (a staging copy you own)
      options (verify)
        --ignore NAME            a JSON member not compared, at any depth (repeatable), e.g. updatedAt
      options (gates)
        --concurrency N          identical requests sent at once with one key (2 to 64, default 16)
        --window D               the replay window the API states, tested when 2m or shorter
        --gates G,G              only these: replay, mismatch, concurrent, in_flight, key_syntax,
                                 window (default all)

      exit status: 0 nothing failing, 1 failing operations, differing answers or failed gates,
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
        case "verify" -> VerifyCommand.run(cl, out, err);
        default -> GatesCommand.run(cl, out, err);
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
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("openapi-check: interrupted");
      return OpenApiCli.UNUSABLE;
    }
  }

  private static int check(CommandLine cl, PrintStream out, PrintStream err) throws IOException {
    AuditSettings settings = AuditSettings.from(cl);
    OpenApiAudit audit = settings.audit();
    if (settings.origin() == ApiOrigin.THIRD_PARTY && cl.option("--window") != null) {
      throw new IllegalArgumentException(
          "--window states this library's replay window in the Markdown; for a --third-party API"
              + " the Markdown states only what its document says: leave --window out");
    }
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
          case "markdown" -> markdown(report, window);
          default -> report.toTable();
        });
    String dir = cl.option("--out");
    if (dir != null) {
      Path outDir = Path.of(dir);
      Files.createDirectories(outDir);
      Files.writeString(outDir.resolve("report.json"), report.toJson(), StandardCharsets.UTF_8);
      Files.writeString(
          outDir.resolve("idempotency.md"), markdown(report, window), StandardCharsets.UTF_8);
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

  private static String markdown(AuditReport report, Duration window) {
    return report.origin() == ApiOrigin.THIRD_PARTY
        ? report.toMarkdown()
        : report.toMarkdown(window);
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
        DocumentReader.read(Path.of(cl.input()), cl.flag("--lenient")),
        headerName,
        cl.option("--path-prefix", ""));
  }

  private static String routesText(RouteTable.Result routes) {
    StringBuilder s = new StringBuilder();
    s.append("# the filter's endpoint rules, first match wins (OpenApiRoutes.from gives these)\n");
    for (EndpointRule r : routes.rules()) {
      s.append(r.requirement())
          .append(' ')
          .append(String.join(",", new TreeSet<>(r.methods())))
          .append(' ')
          .append(r.pathPattern())
          .append('\n');
    }
    for (String note : routes.notes()) {
      s.append("# note: ").append(note).append('\n');
    }
    return s.toString();
  }

  /** The {@code --request-header} values, by name. */
  static Map<String, String> requestHeaders(CommandLine cl) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (String h : cl.options("--request-header")) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("--request-header is 'Name: value', not \"" + h + "\"");
      }
      headers.put(h.substring(0, colon).strip(), h.substring(colon + 1).strip());
    }
    return headers;
  }

  /** The server under test of {@code --base-url}, with the request headers and timeout. */
  static HttpTarget target(CommandLine cl) {
    String baseUrl = cl.option("--base-url");
    if (baseUrl == null) {
      throw new IllegalArgumentException(cl.command() + " needs --base-url, the test server's URL");
    }
    return HttpTarget.to(
        baseUrl,
        cl.flag("--force"),
        duration(cl.option("--timeout", "30s"), "--timeout"),
        requestHeaders(cl));
  }

  /** What {@code verify} and {@code gates} do once the documents are read and audited. */
  interface Sending<T> {
    T send(
        HttpTarget target,
        List<DocumentReader.Document> documents,
        List<OperationReport> reports,
        Map<String, RequestPlanner.Planned> fromFile)
        throws IOException, InterruptedException;
  }

  /** What {@code sending} gave, and the pinned base URL it was sent to. */
  record Sent<T>(String base, T results) {}

  /**
   * Opens the server under test first (a host that is not loopback is refused before anything else
   * is read), then reads the requests file and the documents, audits them as the options say, and
   * runs {@code sending}.
   */
  static <T> Sent<T> sending(CommandLine cl, Sending<T> sending)
      throws IOException, InterruptedException {
    AuditSettings settings = AuditSettings.from(cl);
    try (HttpTarget target = target(cl)) {
      Map<String, RequestPlanner.Planned> fromFile = requestsFile(cl);
      List<DocumentReader.Document> documents = settings.read(Path.of(cl.input()));
      return new Sent<>(
          target.base().toString(),
          sending.send(target, documents, settings.reports(documents), fromFile));
    }
  }

  /** The {@code --requests} file's requests by operation; none without the option. */
  static Map<String, RequestPlanner.Planned> requestsFile(CommandLine cl) throws IOException {
    String requests = cl.option("--requests");
    if (requests == null) {
      return Map.of();
    }
    JsonNode root = new ObjectMapper().readTree(Path.of(requests).toFile());
    return RequestPlanner.fromFile(root);
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
