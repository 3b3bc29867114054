package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.OperationReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One audit over documents already read: every operation's report, the documents' names, what a
 * lenient read could not read, and the check that each overlay entry named an operation (an entry
 * that names none is a typo or a stale overlay, and would silently change nothing).
 */
public final class AuditRun {
  /** The reports, the documents' names, and {@code document: message} for each problem read. */
  public record Result(
      List<String> documents, List<OperationReport> operations, List<String> unread) {}

  private AuditRun() {}

  /**
   * Audits {@code read}.
   *
   * @throws IllegalArgumentException when an overlay entry names no operation of the documents
   */
  public static Result run(
      List<DocumentReader.Document> read,
      String headerName,
      Set<String> conventionMethods,
      ApiOrigin origin,
      @Nullable Overlay overlay) {
    OperationAuditor auditor = new OperationAuditor(headerName, conventionMethods, origin, overlay);
    List<OperationReport> operations = new ArrayList<>();
    List<String> documents = new ArrayList<>();
    List<String> unread = new ArrayList<>();
    for (DocumentReader.Document d : read) {
      documents.add(d.name());
      operations.addAll(auditor.audit(d.name(), d.api()));
      d.problems().forEach(p -> unread.add(d.name() + ": " + p));
    }
    if (overlay != null) {
      Set<String> used = auditor.overlayUsed();
      List<String> unused = overlay.selectors().stream().filter(s -> !used.contains(s)).toList();
      if (!unused.isEmpty()) {
        throw new IllegalArgumentException(
            "overlay "
                + overlay.file()
                + " names operations the document does not have: "
                + String.join(", ", unused)
                + " (an entry is an operationId, or \"METHOD /path\" as the document writes the"
                + " path)");
      }
    }
    return new Result(documents, operations, unread);
  }
}
