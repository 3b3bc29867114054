package dev.idempotency.openapi;

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
  private final List<String> documents;
  private final List<OperationReport> operations;

  AuditReport(String headerName, List<String> documents, List<OperationReport> operations) {
    this.headerName = headerName;
    this.documents = List.copyOf(documents);
    this.operations = List.copyOf(operations);
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
   * endpoints documented as unsafe to retry.
   *
   * @param replayWindow how long the API replays a completed request (the engine's window; 24 h by
   *     default)
   */
  public String toMarkdown(Duration replayWindow) {
    Objects.requireNonNull(replayWindow, "replayWindow");
    if (replayWindow.isNegative() || replayWindow.isZero()) {
      throw new IllegalArgumentException("replayWindow must be positive, but was " + replayWindow);
    }
    return ReportWriters.markdown(this, replayWindow);
  }
}
