package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.Finding;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Outcome;
import dev.idempotency.openapi.Verdict;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Gives every operation of a document its verdict, reason and findings. Immutable. */
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

  /**
   * @param headerName the key header, matched ignoring case as HTTP field names are
   * @param conventionMethods methods that take the key without declaring it (upper case)
   */
  public OperationAuditor(String headerName, Set<String> conventionMethods) {
    this.headerName = headerName;
    this.conventionMethods = Set.copyOf(conventionMethods);
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
        reports.add(
            audit(document, path.getKey(), item, op.getKey().name(), op.getValue(), components));
      }
    }
    return reports;
  }

  /**
   * The key header an operation declares, or null: the operation's parameters override the path
   * item's of the same name and location, as OpenAPI says.
   */
  static @Nullable Parameter keyParameter(
      PathItem item, Operation operation, Components components, String headerName) {
    Map<String, Parameter> byNameAndPlace = new LinkedHashMap<>();
    for (List<Parameter> list :
        java.util.Arrays.asList(item.getParameters(), operation.getParameters())) {
      if (list == null) {
        continue;
      }
      for (Parameter raw : list) {
        Parameter p = components.parameter(raw);
        if (p.getName() != null && p.getIn() != null) {
          byNameAndPlace.put(
              p.getIn().toLowerCase(Locale.ROOT) + ":" + p.getName().toLowerCase(Locale.ROOT), p);
        }
      }
    }
    return byNameAndPlace.get("header:" + headerName.toLowerCase(Locale.ROOT));
  }

  private OperationReport audit(
      String document,
      String path,
      PathItem item,
      String method,
      Operation operation,
      Components components) {
    List<Finding> findings = new ArrayList<>();
    findings.addAll(retryAfterFindings(operation, components));
    String id = operation.getOperationId();
    if (SAFE.contains(method)) {
      return new OperationReport(
          document,
          method,
          path,
          id,
          Verdict.SAFE_METHOD,
          method + " is safe by RFC 9110",
          null,
          findings);
    }
    Parameter key = keyParameter(item, operation, components, headerName);
    KeyDeclaration declared = null;
    String how = "";
    if (key != null) {
      Schema<?> schema = key.getSchema() == null ? null : components.schema(key.getSchema());
      Integer maxLength = schema == null ? null : schema.getMaxLength();
      String pattern = schema == null ? null : schema.getPattern();
      boolean required = Boolean.TRUE.equals(key.getRequired());
      findings.addAll(KeySyntaxCheck.check(maxLength, pattern));
      declared = new KeyDeclaration(required, false, maxLength, pattern);
      how = "declares the header " + headerName + (required ? " (required)" : " (optional)");
    } else if (conventionMethods.contains(method)) {
      declared = new KeyDeclaration(true, true, null, null);
      how =
          "takes " + headerName + " by the convention for " + method + " named on the command line";
    }
    if (declared != null) {
      findings.addAll(conflictFindings(operation));
      return new OperationReport(
          document, method, path, id, Verdict.ACCEPTS_KEY, how, declared, findings);
    }
    Map<String, Object> ext =
        operation.getExtensions() == null ? Map.of() : operation.getExtensions();
    if (Boolean.TRUE.equals(ext.get(RETRY_UNSAFE))) {
      Object why = ext.get(RETRY_UNSAFE_REASON);
      if (why instanceof String reason && !reason.isBlank()) {
        return new OperationReport(
            document,
            method,
            path,
            id,
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
      return new OperationReport(
          document,
          method,
          path,
          id,
          Verdict.VERIFIED_IDEMPOTENT,
          "marked " + IDEMPOTENT + ": true (verified)",
          null,
          findings);
    }
    if (IDEMPOTENT_METHODS.contains(method)) {
      return new OperationReport(
          document,
          method,
          path,
          id,
          Verdict.IDEMPOTENT_BY_METHOD,
          method
              + " without "
              + headerName
              + " relies on the method's promise; run verify, then"
              + " mark it "
              + IDEMPOTENT
              + ": true",
          null,
          findings);
    }
    return new OperationReport(
        document,
        method,
        path,
        id,
        Verdict.NO_KEY,
        method
            + " without "
            + headerName
            + ": declare the header, or mark it "
            + RETRY_UNSAFE
            + ": true with "
            + RETRY_UNSAFE_REASON,
        null,
        findings);
  }

  /** A keyed operation should document the answers to a reused key and to a key in flight. */
  private static List<Finding> conflictFindings(Operation operation) {
    Map<String, ApiResponse> responses =
        operation.getResponses() == null ? Map.of() : operation.getResponses();
    if (responses.containsKey("409") || responses.containsKey("422")) {
      return List.of();
    }
    return List.of(
        new Finding(
            Outcome.WARNING,
            "no_conflict_response",
            "takes the key but documents no 409 or 422: integrators need the answers to a key"
                + " reused with another request (idempotency_key_reused) and to a key still in"
                + " flight (idempotency_request_in_flight)"));
  }

  /** A 429 or 503 should say when to come back. */
  private static List<Finding> retryAfterFindings(Operation operation, Components components) {
    List<Finding> findings = new ArrayList<>();
    if (operation.getResponses() == null) {
      return findings;
    }
    for (String status : List.of("429", "503")) {
      ApiResponse raw = operation.getResponses().get(status);
      if (raw == null) {
        continue;
      }
      ApiResponse response = components.response(raw);
      if (!hasHeader(response, "Retry-After")) {
        findings.add(
            new Finding(
                Outcome.WARNING,
                "no_retry_after",
                "the "
                    + status
                    + " response declares no Retry-After header: clients cannot tell"
                    + " when to retry, and retry at once"));
      }
    }
    return findings;
  }

  private static boolean hasHeader(ApiResponse response, String name) {
    if (response.getHeaders() == null) {
      return false;
    }
    for (Map.Entry<String, Header> h : response.getHeaders().entrySet()) {
      if (h.getKey().equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }
}
