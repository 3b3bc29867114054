package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.AuditReport;
import dev.idempotency.openapi.Finding;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Outcome;
import dev.idempotency.openapi.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Prints an {@link AuditReport} as a terminal table and as JSON ({@link MarkdownWriter} writes the
 * Markdown).
 */
public final class ReportWriters {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** The findings that hold this library's rules against the document. */
  private static final Set<String> OUR_RULES =
      Set.of(
          "key_max_length_over_255",
          "key_pattern_admits_refused_keys",
          "key_pattern_refuses_uuid",
          "key_pattern_unchecked",
          "body_key_not_read_by_the_filter");

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
    for (String hint : hints(report)) {
      out.append(hint).append('\n');
    }
    if (!report.unread().isEmpty()) {
      out.append("\nNot read (lenient): the verdicts above are on the rest.\n");
      for (String u : report.unread()) {
        out.append("  ").append(u).append('\n');
      }
    }
    return out.toString();
  }

  /**
   * One line per key header declared under another name than the one looked for, with how many
   * operations declare it: {@code --header} is the fix.
   */
  static List<String> hints(AuditReport report) {
    Map<String, Integer> others = new TreeMap<>();
    for (OperationReport o : report.operations()) {
      for (Finding f : o.findings()) {
        String name = ContractFindings.otherHeaderNamed(f);
        if (name != null) {
          others.merge(name, 1, Integer::sum);
        }
      }
    }
    List<String> hints = new ArrayList<>();
    boolean ourRules =
        report.origin() == ApiOrigin.OWN
            && report.operations().stream()
                .flatMap(o -> o.findings().stream())
                .anyMatch(f -> OUR_RULES.contains(f.code()));
    if (ourRules) {
      hints.add(
          "The key findings apply this library's rules (an API it serves); for someone else's API,"
              + " run with --third-party: only its document's rules apply.");
    }
    others.forEach(
        (name, n) ->
            hints.add(
                n
                    + " operations declare the key header "
                    + name
                    + ", not "
                    + report.headerName()
                    + ": run again with --header "
                    + name));
    return hints;
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
    root.put("origin", report.origin().name());
    ArrayNode documents = root.putArray("documents");
    report.documents().forEach(documents::add);
    ObjectNode verdicts = root.putObject("verdicts");
    report.verdictCounts().forEach((v, n) -> verdicts.put(v.name(), n));
    ObjectNode outcomes = root.putObject("outcomes");
    report.outcomeCounts().forEach((v, n) -> outcomes.put(v.name(), n));
    ArrayNode unread = root.putArray("unread");
    report.unread().forEach(unread::add);
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
        k.put("location", key.location().name());
        k.put("name", key.name());
        k.put("required", key.required());
        k.put("source", key.source().name());
        k.put("byConvention", key.byConvention());
        k.put("maxLength", key.maxLength());
        k.put("pattern", key.pattern());
        k.put("description", key.description());
        ObjectNode answers = k.putObject("conflictAnswers");
        key.conflictAnswers().forEach(answers::put);
        k.put("replayHeader", key.replayHeader());
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
}
