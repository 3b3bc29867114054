package dev.idempotency.openapi;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The verdict on one operation, its reason and its findings. Immutable.
 *
 * @param document the document it was read from, as given (a directory's documents differ here)
 * @param method the HTTP method, upper case
 * @param path the path template as the document writes it, for example {@code /orders/{id}}
 * @param operationId the operation's {@code operationId}, when it has one
 * @param verdict the verdict
 * @param reason why, in one sentence naming what the document does or lacks
 * @param key how it takes the key, when it does
 * @param findings what else is wrong, in the order found
 */
public record OperationReport(
    String document,
    String method,
    String path,
    @Nullable String operationId,
    Verdict verdict,
    String reason,
    @Nullable KeyDeclaration key,
    List<Finding> findings) {
  /** Validates and copies the components. */
  public OperationReport {
    Objects.requireNonNull(document, "document");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(reason, "reason");
    findings = List.copyOf(findings);
  }

  /** The verdict's outcome, or a finding's when that is worse. */
  public Outcome outcome() {
    Outcome worst = verdict.outcome();
    for (Finding f : findings) {
      worst = worst.worst(f.outcome());
    }
    return worst;
  }

  /** {@code METHOD path}, as tables and messages name an operation. */
  public String name() {
    return method + " " + path;
  }
}
