package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.openapi.AuditReport;
import dev.idempotency.openapi.Finding;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Outcome;
import dev.idempotency.openapi.Verdict;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Prints an {@link AuditReport} as a terminal table, JSON, and the integrator docs' Markdown. */
public final class ReportWriters {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ReportWriters() {}

  /** The terminal table. */
  public static String table(AuditReport report) {
    List<OperationReport> ops = report.operations();
    int methodWidth = "METHOD".length();
    int pathWidth = "PATH".length();
    for (OperationReport o : ops) {
      methodWidth = Math.max(methodWidth, o.method().length());
      pathWidth = Math.max(pathWidth, Math.min(70, o.path().length()));
    }
    String row = "%-8s %-" + methodWidth + "s %-" + pathWidth + "s %s%n";
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, row, "OUTCOME", "METHOD", "PATH", "VERDICT"));
    String document = null;
    for (OperationReport o : ops) {
      if (report.documents().size() > 1 && !o.document().equals(document)) {
        document = o.document();
        out.append("# ").append(document).append('\n');
      }
      out.append(
          String.format(Locale.ROOT, row, o.outcome(), o.method(), o.path(), o.verdict().label()));
      if (o.outcome() != Outcome.OK || !o.findings().isEmpty()) {
        out.append("         ").append(o.reason()).append('\n');
      }
      for (Finding f : o.findings()) {
        out.append("         ")
            .append(f.outcome())
            .append(' ')
            .append(f.code())
            .append(": ")
            .append(f.message())
            .append('\n');
      }
    }
    out.append('\n').append(summary(report)).append('\n');
    return out.toString();
  }

  /** One line: the operations by verdict and by outcome. */
  public static String summary(AuditReport report) {
    StringBuilder s = new StringBuilder();
    s.append(report.operations().size()).append(" operations:");
    String sep = " ";
    for (Map.Entry<Verdict, Integer> e : report.verdictCounts().entrySet()) {
      if (e.getValue() > 0) {
        s.append(sep).append(e.getValue()).append(' ').append(e.getKey().label());
        sep = ", ";
      }
    }
    Map<Outcome, Integer> outcomes = report.outcomeCounts();
    s.append(". ")
        .append(outcomes.get(Outcome.FAILING))
        .append(" failing, ")
        .append(outcomes.get(Outcome.WARNING))
        .append(" with warnings.");
    return s.toString();
  }

  /** The JSON report. */
  public static String json(AuditReport report) {
    ObjectNode root = JSON.createObjectNode();
    root.put("headerName", report.headerName());
    ArrayNode documents = root.putArray("documents");
    report.documents().forEach(documents::add);
    ObjectNode verdicts = root.putObject("verdicts");
    report.verdictCounts().forEach((v, n) -> verdicts.put(v.name(), n));
    ObjectNode outcomes = root.putObject("outcomes");
    report.outcomeCounts().forEach((v, n) -> outcomes.put(v.name(), n));
    ArrayNode operations = root.putArray("operations");
    for (OperationReport o : report.operations()) {
      ObjectNode op = operations.addObject();
      op.put("document", o.document());
      op.put("method", o.method());
      op.put("path", o.path());
      op.put("operationId", o.operationId());
      op.put("verdict", o.verdict().name());
      op.put("outcome", o.outcome().name());
      op.put("reason", o.reason());
      KeyDeclaration key = o.key();
      if (key != null) {
        ObjectNode k = op.putObject("key");
        k.put("required", key.required());
        k.put("byConvention", key.byConvention());
        k.put("maxLength", key.maxLength());
        k.put("pattern", key.pattern());
      }
      ArrayNode findings = op.putArray("findings");
      for (Finding f : o.findings()) {
        findings
            .addObject()
            .put("outcome", f.outcome().name())
            .put("code", f.code())
            .put("message", f.message());
      }
    }
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  /** The integrator docs' Markdown section. */
  public static String markdown(AuditReport report, Duration window) {
    String header = report.headerName();
    List<OperationReport> keyed =
        report.operations().stream().filter(o -> o.verdict() == Verdict.ACCEPTS_KEY).toList();
    StringBuilder md = new StringBuilder();
    md.append("## Idempotency keys\n\n");
    if (keyed.isEmpty()) {
      md.append("No endpoint of this API takes an idempotency key.\n");
    } else {
      md.append("These endpoints take an idempotency key in the `")
          .append(header)
          .append(
              "` header. Send one key per logical operation, and the same key on every retry"
                  + " of it: a retry then has the effect of one request.\n\n");
      md.append("| endpoint | operation | key |\n|---|---|---|\n");
      for (OperationReport o : keyed) {
        KeyDeclaration k = o.key();
        md.append("| `")
            .append(cell(o.name()))
            .append("` | ")
            .append(o.operationId() == null ? "" : "`" + cell(o.operationId()) + "`")
            .append(" | ")
            .append(k != null && k.required() ? "required" : "optional")
            .append(" |\n");
      }
      md.append('\n');
      md.append("- **The header:** `")
          .append(header)
          .append("`, ")
          .append("1 to ")
          .append(maxLength(keyed))
          .append(
              " characters of printable ASCII (0x21 to 0x7E: no spaces, no control characters,"
                  + " no non-ASCII). One value per request. Keys are case-sensitive and belong to the"
                  + " authenticated caller.\n");
      md.append(
          "- **Which key:** derive it from the business event (`order-confirm-<orderId>`);"
              + " otherwise mint a random UUID once, before the first attempt, and reuse it on every"
              + " retry. Never mint a new key per attempt.\n");
      md.append("- **The window:** a retry within ")
          .append(words(window))
          .append(
              " of the first request's completion gets the stored response, byte for byte,"
                  + " with `Idempotent-Replayed: true`. After that, the same key is a new request.\n");
      md.append(
          "- **The same key with another request** (method, path, query or body): `409`,"
              + " problem code `idempotency_key_reused`. Never retried, never replayed.\n");
      md.append(
          "- **The same key while the first request still runs:** `409`, problem code"
              + " `idempotency_request_in_flight`, with `Retry-After`: retry after it, same key.\n");
      md.append(
          "- **A missing key where required:** `400 idempotency_key_missing`; a malformed"
              + " key: `400 idempotency_key_invalid`.\n");
    }
    appendList(
        md,
        report,
        Verdict.DOCUMENTED_RETRY_UNSAFE,
        "Endpoints that are unsafe to retry",
        "These take no key. After a lost response, check the outcome before sending again.");
    appendList(
        md,
        report,
        Verdict.VERIFIED_IDEMPOTENT,
        "Endpoints idempotent without a key",
        "Sending one of these again with the same request leaves the same state.");
    return md.toString();
  }

  private static void appendList(
      StringBuilder md, AuditReport report, Verdict verdict, String heading, String intro) {
    List<OperationReport> ops =
        report.operations().stream().filter(o -> o.verdict() == verdict).toList();
    if (ops.isEmpty()) {
      return;
    }
    md.append("\n### ").append(heading).append("\n\n").append(intro).append("\n\n");
    for (OperationReport o : ops) {
      md.append("- `").append(cell(o.name())).append('`');
      if (verdict == Verdict.DOCUMENTED_RETRY_UNSAFE) {
        md.append(": ").append(cell(o.reason().substring(o.reason().indexOf(':') + 1).strip()));
      }
      md.append('\n');
    }
  }

  /** The smallest declared maxLength, when below the server's limit: the stricter promise holds. */
  private static int maxLength(List<OperationReport> keyed) {
    int max = IdempotencyKey.MAX_LENGTH;
    for (OperationReport o : keyed) {
      KeyDeclaration k = o.key();
      if (k != null && k.maxLength() != null && k.maxLength() > 0) {
        max = Math.min(max, k.maxLength());
      }
    }
    return max;
  }

  private static String words(Duration d) {
    if (d.toSeconds() % 3600 == 0) {
      long h = d.toHours();
      return h + (h == 1 ? " hour" : " hours");
    }
    if (d.toSeconds() % 60 == 0) {
      long m = d.toMinutes();
      return m + (m == 1 ? " minute" : " minutes");
    }
    return d.toSeconds() + " seconds";
  }

  /** Text from the document inside a Markdown table cell or list item: no pipes, no line breaks. */
  private static String cell(String s) {
    return s.replace("|", "\\|").replace("`", "'").replaceAll("[\\r\\n]+", " ");
  }
}
