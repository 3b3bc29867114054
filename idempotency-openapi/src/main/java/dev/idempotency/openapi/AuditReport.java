package dev.idempotency.openapi;

import dev.idempotency.openapi.internal.MarkdownWriter;
import dev.idempotency.openapi.internal.ReportWriters;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The verdicts on every operation of the documents read, and the three ways to print them: a
 * terminal table, JSON, and a Markdown section for the API's integrator docs. Immutable.
 */
public final class AuditReport {
  private final String headerName;
  private final ApiOrigin origin;
  private final List<String> documents;
  private final List<OperationReport> operations;
  private final List<String> unread;

  AuditReport(String headerName, List<String> documents, List<OperationReport> operations) {
    this(headerName, ApiOrigin.OWN, documents, operations, List.of());
  }

  AuditReport(
      String headerName,
      ApiOrigin origin,
      List<String> documents,
      List<OperationReport> operations,
      List<String> unread) {
    this.headerName = headerName;
    this.origin = origin;
    this.documents = List.copyOf(documents);
    this.operations = List.copyOf(operations);
    this.unread = List.copyOf(unread);
  }

  /** Whose API the audit took the document for, and so whose rules it applied. */
  public ApiOrigin origin() {
    return origin;
  }

  /**
   * What a lenient read could not read, each {@code document: the parser's message}; always empty
   * after a strict read (which refuses such a document). The verdicts are on the rest.
   */
  public List<String> unread() {
    return unread;
  }

  /** The documents read, as named in the reports. */
  public List<String> documents() {
    return documents;
  }

  /** Every operation, in the documents' order. */
  public List<OperationReport> operations() {
    return operations;
  }

  /** The key header the audit looked for. */
  public String headerName() {
    return headerName;
  }

  /** The operations whose outcome is {@link Outcome#FAILING}: the list of endpoints to fix. */
  public List<OperationReport> failing() {
    return operations.stream().filter(o -> o.outcome() == Outcome.FAILING).toList();
  }

  /** How many operations got each verdict; every verdict is present, most with 0. */
  public Map<Verdict, Integer> verdictCounts() {
    return count(Verdict.class, OperationReport::verdict);
  }

  /** How many operations have each outcome; every outcome is present. */
  public Map<Outcome, Integer> outcomeCounts() {
    return count(Outcome.class, OperationReport::outcome);
  }

  private <E extends Enum<E>> Map<E, Integer> count(
      Class<E> type, Function<OperationReport, E> of) {
    Map<E, Integer> counts = new EnumMap<>(type);
    for (E e : type.getEnumConstants()) {
      counts.put(e, 0);
    }
    for (OperationReport o : operations) {
      counts.merge(of.apply(o), 1, Integer::sum);
    }
    return counts;
  }

  /**
   * A plain-text table for a terminal: one row per operation, its findings beneath it, a summary.
   */
  public String toTable() {
    return ReportWriters.table(this);
  }

  /** The report as one JSON object (the shape is documented in {@code docs/openapi.md}). */
  public String toJson() {
    return ReportWriters.json(this);
  }

  /**
   * A Markdown section for the API's integrator docs: which endpoints take the key, the header and
   * its limits, the replay window, the answers to a reused key and to one in flight, and the
   * endpoints documented as unsafe to retry: this library's answers, for an API it serves ({@link
   * ApiOrigin#OWN}).
   *
   * @param replayWindow how long the API replays a completed request (the engine's window; 24 h by
   *     default)
   * @throws IllegalStateException for a {@link ApiOrigin#THIRD_PARTY} audit, whose Markdown states
   *     no window the document does not ({@link #toMarkdown()})
   */
  public String toMarkdown(Duration replayWindow) {
    Objects.requireNonNull(replayWindow, "replayWindow");
    if (replayWindow.isNegative() || replayWindow.isZero()) {
      throw new IllegalArgumentException("replayWindow must be positive, but was " + replayWindow);
    }
    if (origin == ApiOrigin.THIRD_PARTY) {
      throw new IllegalStateException(
          "the Markdown for someone else's API states only what its document says: no replay"
              + " window of this library's; call toMarkdown()");
    }
    return MarkdownWriter.own(this, replayWindow);
  }

  /**
   * The Markdown section with what the document says only: for {@link ApiOrigin#THIRD_PARTY}, the
   * key of each endpoint as declared, the document's own words about it and the answers it
   * documents; for {@link ApiOrigin#OWN}, {@link #toMarkdown(Duration)} with the engine's default
   * window of 24 hours.
   */
  public String toMarkdown() {
    return origin == ApiOrigin.THIRD_PARTY
        ? MarkdownWriter.thirdParty(this)
        : toMarkdown(Duration.ofHours(24));
  }
}
