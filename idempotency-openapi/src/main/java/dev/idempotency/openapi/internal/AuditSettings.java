package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.OpenApiAudit;
import dev.idempotency.openapi.OperationReport;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The audit options of a command line ({@code --header}, {@code --key-convention}, {@code
 * --third-party}, {@code --lenient}, {@code --overlay}), for the commands that audit ({@code
 * check}) and those that audit before they send ({@code verify}, {@code gates}).
 */
record AuditSettings(
    String headerName,
    Set<String> conventions,
    ApiOrigin origin,
    boolean lenient,
    @Nullable Path overlayFile) {
  static AuditSettings from(CommandLine cl) {
    Set<String> conventions = new LinkedHashSet<>();
    String convention = cl.option("--key-convention");
    if (convention != null) {
      for (String m : convention.split(",", -1)) {
        conventions.add(m.strip().toUpperCase(Locale.ROOT));
      }
    }
    String overlay = cl.option("--overlay");
    return new AuditSettings(
        cl.option("--header", "Idempotency-Key"),
        conventions,
        cl.flag("--third-party") ? ApiOrigin.THIRD_PARTY : ApiOrigin.OWN,
        cl.flag("--lenient"),
        overlay == null ? null : Path.of(overlay));
  }

  /** The public audit with these options (validating them: a bad header or method is refused). */
  OpenApiAudit audit() {
    OpenApiAudit.Builder b =
        OpenApiAudit.builder().headerName(headerName).origin(origin).lenient(lenient);
    b.keyConvention(conventions.toArray(String[]::new));
    if (overlayFile != null) {
      b.overlay(overlayFile);
    }
    return b.build();
  }

  /** The documents at {@code input}, read as these options say. */
  List<DocumentReader.Document> read(Path input) {
    return DocumentReader.read(input, lenient);
  }

  /** The reports on documents already read. */
  List<OperationReport> reports(List<DocumentReader.Document> documents) {
    audit(); // validates the options as check does, with the same messages
    Overlay overlay = overlayFile == null ? null : Overlay.read(overlayFile);
    return AuditRun.run(documents, headerName, conventions, origin, overlay).operations();
  }
}
