package dev.idempotency.openapi.internal;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.openapi.AuditReport;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The integrator docs' Markdown section. For an API this library serves it states the library's
 * contract (the header's syntax, the replay window, the {@code 409} problem codes); for someone
 * else's API it states only what the document says: each endpoint's key as declared, the document's
 * own words about it, and the answers it documents. Text from the document stays inside its cell.
 */
public final class MarkdownWriter {
  /** The longest quote of the document's words in a cell; the document has the rest. */
  private static final int MAX_QUOTE = 300;

  private MarkdownWriter() {}

  /** The section for an API served by this library, stating its answers and {@code window}. */
  public static String own(AuditReport report, Duration window) {
    String header = report.headerName();
    List<OperationReport> keyed = headerKeyed(report);
    StringBuilder md = new StringBuilder();
    md.append("## Idempotency keys\n\n");
    if (keyed.isEmpty()) {
      md.append("No endpoint of this API takes an idempotency key in a header.\n");
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
            .append(operationId(o))
            .append(" | ")
            .append(k != null && k.required() ? "required" : "optional")
            .append(" |\n");
      }
      md.append('\n');
      md.append("- **The header:** `")
          .append(header)
          .append("`, 1 to ")
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
    bodyKeyed(md, report);
    lists(md, report);
    return md.toString();
  }

  /** The section for someone else's API: what its document says, and nothing of this library's. */
  public static String thirdParty(AuditReport report) {
    StringBuilder md = new StringBuilder();
    md.append("## Idempotency keys\n\n");
    md.append(
        "What this API's OpenAPI document says about retrying its endpoints safely; where it is"
            + " silent, so is this page.\n\n");
    List<OperationReport> keyed = headerKeyed(report);
    if (keyed.isEmpty()) {
      md.append("The document declares no idempotency key header.\n");
    } else {
      md.append("### Endpoints that take a key in a header\n\n");
      md.append("| endpoint | operation | header | required | limits | the document says |\n");
      md.append("|---|---|---|---|---|---|\n");
      for (OperationReport o : keyed) {
        keyRow(md, o);
      }
    }
    bodyKeyed(md, report);
    List<OperationReport> all = new ArrayList<>(keyed);
    all.addAll(byVerdict(report, Verdict.ACCEPTS_KEY_IN_BODY));
    if (!all.isEmpty()) {
      md.append('\n')
          .append(
              "For the client: mint one key per logical operation, before the first attempt, and"
                  + " send it on every retry of that operation.\n");
      answers(md, all);
    }
    lists(md, report);
    return md.toString();
  }

  private static void keyRow(StringBuilder md, OperationReport o) {
    KeyDeclaration k = o.key();
    if (k == null) {
      return;
    }
    md.append("| `")
        .append(cell(o.name()))
        .append("` | ")
        .append(operationId(o))
        .append(" | `")
        .append(cell(k.name()))
        .append("` | ")
        .append(k.required() ? "yes" : "no")
        .append(" | ")
        .append(limits(k))
        .append(" | ")
        .append(quote(k))
        .append(" |\n");
  }

  /** Keys in the body: named by property, with the document's words; the filter reads none. */
  private static void bodyKeyed(StringBuilder md, AuditReport report) {
    List<OperationReport> body = byVerdict(report, Verdict.ACCEPTS_KEY_IN_BODY);
    if (body.isEmpty()) {
      return;
    }
    md.append("\n### Endpoints that take a key in the request body\n\n");
    md.append("| endpoint | operation | property | required | limits | the document says |\n");
    md.append("|---|---|---|---|---|---|\n");
    for (OperationReport o : body) {
      keyRow(md, o);
    }
  }

  /** The documented answers to a reused key and a key in flight, grouped by what they say. */
  private static void answers(StringBuilder md, List<OperationReport> keyed) {
    Map<String, List<String>> byAnswer = new LinkedHashMap<>();
    List<String> silent = new ArrayList<>();
    List<String> replay = new ArrayList<>();
    for (OperationReport o : keyed) {
      KeyDeclaration k = o.key();
      if (k == null) {
        continue;
      }
      if (k.conflictAnswers().isEmpty()) {
        silent.add(o.name());
      }
      k.conflictAnswers()
          .forEach(
              (status, text) ->
                  byAnswer
                      .computeIfAbsent(
                          "`" + status + "`: " + cell(clip(text)), a -> new ArrayList<>())
                      .add(o.name()));
      if (k.replayHeader() != null) {
        replay.add(o.name() + " (`" + k.replayHeader() + "`)");
      }
    }
    md.append("\n### The answers the document gives\n\n");
    for (Map.Entry<String, List<String>> a : byAnswer.entrySet()) {
      md.append("- ").append(a.getKey()).append(" (").append(names(a.getValue())).append(")\n");
    }
    if (!silent.isEmpty()) {
      md.append("- No `409` or `422` response is documented for ")
          .append(names(silent))
          .append(
              ": the document does not say what a key reused with another request, or one still"
                  + " in flight, is answered.\n");
    }
    md.append(
        replay.isEmpty()
            ? "- The document declares no header that marks a replayed answer.\n"
            : "- A replayed answer is marked by a header: "
                + cell(String.join(", ", replay))
                + ".\n");
  }

  /** The endpoints documented as unsafe, confirmed safe, and verified idempotent. */
  private static void lists(StringBuilder md, AuditReport report) {
    appendList(
        md,
        report,
        Verdict.DOCUMENTED_RETRY_UNSAFE,
        "Endpoints that are unsafe to retry",
        "These take no key. After a lost response, check the outcome before sending again.");
    appendList(
        md,
        report,
        Verdict.CONFIRMED_SAFE,
        "Endpoints safe to retry without a key",
        "Sending one of these again changes nothing more than the first did.");
    appendList(
        md,
        report,
        Verdict.VERIFIED_IDEMPOTENT,
        "Endpoints idempotent without a key",
        "Sending one of these again with the same request leaves the same state.");
  }

  private static void appendList(
      StringBuilder md, AuditReport report, Verdict verdict, String heading, String intro) {
    List<OperationReport> ops = byVerdict(report, verdict);
    if (ops.isEmpty()) {
      return;
    }
    md.append("\n### ").append(heading).append("\n\n").append(intro).append("\n\n");
    for (OperationReport o : ops) {
      md.append("- `").append(cell(o.name())).append('`');
      if (verdict != Verdict.VERIFIED_IDEMPOTENT) {
        // "marked x-retry-unsafe: why" or "overlay SELECTOR: why": the why
        String reason = o.reason();
        int colon = reason.indexOf(": ");
        md.append(": ").append(cell(colon < 0 ? reason : reason.substring(colon + 2).strip()));
        if (reason.startsWith("overlay ")) {
          md.append(" (from the integrator's overlay, not the document)");
        }
      }
      md.append('\n');
    }
  }

  private static List<OperationReport> headerKeyed(AuditReport report) {
    return byVerdict(report, Verdict.ACCEPTS_KEY);
  }

  private static List<OperationReport> byVerdict(AuditReport report, Verdict verdict) {
    return report.operations().stream().filter(o -> o.verdict() == verdict).toList();
  }

  private static String operationId(OperationReport o) {
    return o.operationId() == null ? "" : "`" + cell(o.operationId()) + "`";
  }

  private static String limits(KeyDeclaration k) {
    List<String> parts = new ArrayList<>();
    if (k.maxLength() != null) {
      parts.add("maxLength " + k.maxLength());
    }
    if (k.pattern() != null) {
      parts.add("pattern `" + cell(k.pattern()) + "`");
    }
    return parts.isEmpty() ? "none declared" : String.join(", ", parts);
  }

  private static String quote(KeyDeclaration k) {
    String d = k.description();
    if (k.source() != KeyDeclaration.Source.DOCUMENT) {
      return k.source() == KeyDeclaration.Source.OVERLAY
          ? "(from the integrator's overlay)"
          : "(by the convention given)";
    }
    return d == null || d.isBlank() ? "" : cell(clip(d));
  }

  private static String clip(String s) {
    String flat = s.strip().replaceAll("\\s+", " ");
    return flat.length() <= MAX_QUOTE ? flat : flat.substring(0, MAX_QUOTE - 1) + "…";
  }

  private static String names(List<String> names) {
    if (names.size() <= 3) {
      return "`" + String.join("`, `", names.stream().map(MarkdownWriter::cell).toList()) + "`";
    }
    return "`" + cell(names.get(0)) + "` and " + (names.size() - 1) + " more";
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
  static String cell(String s) {
    return s.replace("|", "\\|").replace("`", "'").replaceAll("[\\r\\n]+", " ");
  }
}
