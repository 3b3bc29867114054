package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.Finding;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Outcome;
import dev.idempotency.openapi.Verdict;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Gives every operation of a document its verdict, reason and findings. The first rule that applies
 * decides: a safe method; the caller's overlay; the key header; a convention; a key in the body;
 * {@code x-retry-unsafe} with its reason; {@code x-idempotent}; PUT or DELETE; the shape of a read;
 * none of these. One instance per audit: it records which overlay entries were used.
 */
public final class OperationAuditor {
  /** The extension that marks a PUT, DELETE or other method verified idempotent. */
  public static final String IDEMPOTENT = "x-idempotent";

  /** The extension that documents an operation as unsafe to retry. */
  public static final String RETRY_UNSAFE = "x-retry-unsafe";

  /** The reason {@link #RETRY_UNSAFE} needs beside it. */
  public static final String RETRY_UNSAFE_REASON = "x-retry-unsafe-reason";

  private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS", "TRACE");
  private static final Set<String> IDEMPOTENT_METHODS = Set.of("PUT", "DELETE");

  private final String headerName;
  private final Set<String> conventionMethods;
  private final ApiOrigin origin;
  private final @Nullable Overlay overlay;
  private final Set<String> overlayUsed = new LinkedHashSet<>();

  /**
   * @param headerName the key header, matched ignoring case as HTTP field names are
   * @param conventionMethods methods that take the key without declaring it (upper case)
   * @param origin whose API it is, and so whose key rules apply
   * @param overlay the caller's verdicts on operations, or null
   */
  public OperationAuditor(
      String headerName,
      Set<String> conventionMethods,
      ApiOrigin origin,
      @Nullable Overlay overlay) {
    this.headerName = headerName;
    this.conventionMethods = Set.copyOf(conventionMethods);
    this.origin = origin;
    this.overlay = overlay;
  }

  /** The reports of every operation of {@code api}, in the document's order. */
  public List<OperationReport> audit(String document, OpenAPI api) {
    Components components = new Components(api);
    List<OperationReport> reports = new ArrayList<>();
    if (api.getPaths() == null) {
      return reports;
    }
    for (Map.Entry<String, PathItem> path : api.getPaths().entrySet()) {
      PathItem item = path.getValue();
      for (Map.Entry<PathItem.HttpMethod, Operation> op : item.readOperationsMap().entrySet()) {
        Site site =
            new Site(document, path.getKey(), item, op.getKey().name(), op.getValue(), components);
        reports.add(audit(site));
      }
    }
    return reports;
  }

  /** The overlay entries some operation matched, by selector. */
  public Set<String> overlayUsed() {
    return Set.copyOf(overlayUsed);
  }

  /** One operation and where it stands. */
  private record Site(
      String document,
      String path,
      PathItem item,
      String method,
      Operation operation,
      Components components) {
    OperationReport report(
        Verdict verdict, String reason, @Nullable KeyDeclaration key, List<Finding> findings) {
      return new OperationReport(
          document, method, path, operation.getOperationId(), verdict, reason, key, findings);
    }
  }

  private OperationReport audit(Site s) {
    List<Finding> findings =
        new ArrayList<>(ContractFindings.retryAfter(s.operation(), s.components()));
    Overlay.Entry entry =
        overlay == null
            ? null
            : overlay.lookup(s.method(), s.path(), s.operation().getOperationId());
    if (entry != null) {
      overlayUsed.add(entry.selector());
      return fromOverlay(s, entry, findings);
    }
    if (SAFE.contains(s.method())) {
      return s.report(Verdict.SAFE_METHOD, s.method() + " is safe by RFC 9110", null, findings);
    }
    Parameter header = KeyLocator.header(s.item(), s.operation(), s.components(), headerName);
    if (header != null) {
      Schema<?> schema =
          header.getSchema() == null ? null : s.components().schema(header.getSchema());
      Integer maxLength = schema == null ? null : schema.getMaxLength();
      String pattern = schema == null ? null : schema.getPattern();
      boolean required = Boolean.TRUE.equals(header.getRequired());
      findings.addAll(ContractFindings.headerKey(origin, maxLength, pattern));
      findings.addAll(ContractFindings.conflict(origin, s.operation()));
      KeyDeclaration key =
          declared(
              s,
              KeyDeclaration.Location.HEADER,
              header.getName(),
              required,
              KeyDeclaration.Source.DOCUMENT,
              maxLength,
              pattern,
              header.getDescription());
      String how =
          "declares the header " + header.getName() + (required ? " (required)" : " (optional)");
      return s.report(Verdict.ACCEPTS_KEY, how, key, findings);
    }
    if (conventionMethods.contains(s.method())) {
      findings.addAll(ContractFindings.conflict(origin, s.operation()));
      String how =
          "takes "
              + headerName
              + " by the convention for "
              + s.method()
              + " named on the command line";
      KeyDeclaration key =
          declared(
              s,
              KeyDeclaration.Location.HEADER,
              headerName,
              true,
              KeyDeclaration.Source.CONVENTION,
              null,
              null,
              null);
      return s.report(Verdict.ACCEPTS_KEY, how, key, findings);
    }
    KeyLocator.BodyKey body = KeyLocator.bodyKey(s.operation(), s.components());
    if (body != null) {
      findings.addAll(ContractFindings.bodyKey(origin, body));
      findings.addAll(ContractFindings.conflict(origin, s.operation()));
      KeyDeclaration key =
          declared(
              s,
              KeyDeclaration.Location.BODY,
              body.name(),
              body.required(),
              KeyDeclaration.Source.DOCUMENT,
              body.schema().getMaxLength(),
              body.schema().getPattern(),
              body.schema().getDescription());
      String how =
          "takes the key in the body property "
              + body.name()
              + (body.required() ? " (required)" : " (optional)");
      return s.report(Verdict.ACCEPTS_KEY_IN_BODY, how, key, findings);
    }
    return unkeyed(s, findings);
  }

  /** No key: documented as unsafe, marked idempotent, PUT or DELETE, a read's shape, or failing. */
  private OperationReport unkeyed(Site s, List<Finding> findings) {
    List<String> otherHeaders =
        KeyLocator.otherKeyHeaders(s.item(), s.operation(), s.components(), headerName);
    findings.addAll(ContractFindings.otherKeyHeader(otherHeaders, headerName));
    Map<String, Object> ext =
        s.operation().getExtensions() == null ? Map.of() : s.operation().getExtensions();
    if (Boolean.TRUE.equals(ext.get(RETRY_UNSAFE))) {
      Object why = ext.get(RETRY_UNSAFE_REASON);
      if (why instanceof String reason && !reason.isBlank()) {
        return s.report(
            Verdict.DOCUMENTED_RETRY_UNSAFE,
            "marked " + RETRY_UNSAFE + ": " + reason.strip(),
            null,
            findings);
      }
      findings.add(
          new Finding(
              Outcome.FAILING,
              "retry_unsafe_without_reason",
              RETRY_UNSAFE
                  + ": true needs "
                  + RETRY_UNSAFE_REASON
                  + " saying why a retry is unsafe, for the integrators who read it"));
    }
    if (Boolean.TRUE.equals(ext.get(IDEMPOTENT))) {
      return s.report(
          Verdict.VERIFIED_IDEMPOTENT,
          "marked " + IDEMPOTENT + ": true (verified)",
          null,
          findings);
    }
    if (IDEMPOTENT_METHODS.contains(s.method())) {
      return s.report(
          Verdict.IDEMPOTENT_BY_METHOD,
          s.method()
              + " without "
              + headerName
              + " relies on the method's promise; run verify, then mark it "
              + IDEMPOTENT
              + ": true",
          null,
          findings);
    }
    String read = ReadOnlyShapes.readShape(s.method(), s.path(), s.operation().getOperationId());
    if (read != null) {
      return s.report(
          Verdict.LIKELY_READ_ONLY,
          read
              + ": if it changes nothing, say so in an overlay (verdict: safe, with the reason);"
              + " otherwise it needs a key",
          null,
          findings);
    }
    String fix =
        otherHeaders.isEmpty()
            ? "declare the header, or mark it "
                + RETRY_UNSAFE
                + ": true with "
                + RETRY_UNSAFE_REASON
            : "it declares " + otherHeaders.get(0) + ": run with --header " + otherHeaders.get(0);
    if (origin == ApiOrigin.THIRD_PARTY && otherHeaders.isEmpty()) {
      fix =
          "ask the provider for a key, or record what you know in an overlay (keyed, unsafe or safe)";
    }
    return s.report(
        Verdict.NO_KEY, s.method() + " without " + headerName + ": " + fix, null, findings);
  }

  /** A key declaration with the answers the operation documents for it. */
  private static KeyDeclaration declared(
      Site s,
      KeyDeclaration.Location location,
      String name,
      boolean required,
      KeyDeclaration.Source source,
      @Nullable Integer maxLength,
      @Nullable String pattern,
      @Nullable String description) {
    return new KeyDeclaration(
        location,
        name,
        required,
        source,
        maxLength,
        pattern,
        description,
        KeyLocator.conflictAnswers(s.operation(), s.components()),
        KeyLocator.replayHeader(s.operation(), s.components()));
  }

  private OperationReport fromOverlay(Site s, Overlay.Entry entry, List<Finding> findings) {
    String why = "overlay " + entry.selector() + ": " + entry.reason();
    return switch (entry.kind()) {
      case SAFE -> s.report(Verdict.CONFIRMED_SAFE, why, null, findings);
      case UNSAFE -> s.report(Verdict.DOCUMENTED_RETRY_UNSAFE, why, null, findings);
      case KEYED -> {
        findings.addAll(ContractFindings.conflict(origin, s.operation()));
        String body = entry.bodyProperty();
        String header = entry.header();
        KeyDeclaration key =
            body != null
                ? declared(
                    s,
                    KeyDeclaration.Location.BODY,
                    body,
                    true,
                    KeyDeclaration.Source.OVERLAY,
                    null,
                    null,
                    null)
                : declared(
                    s,
                    KeyDeclaration.Location.HEADER,
                    header == null ? headerName : header,
                    true,
                    KeyDeclaration.Source.OVERLAY,
                    null,
                    null,
                    null);
        yield s.report(
            key.location() == KeyDeclaration.Location.BODY
                ? Verdict.ACCEPTS_KEY_IN_BODY
                : Verdict.ACCEPTS_KEY,
            why,
            key,
            findings);
      }
    };
  }
}
