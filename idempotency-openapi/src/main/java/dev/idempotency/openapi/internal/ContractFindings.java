package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.Finding;
import dev.idempotency.openapi.Outcome;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The findings beside a verdict: the key's declared limits, the answers a keyed operation owes its
 * integrators, {@code Retry-After}, and a key header under another name. Whose rules apply depends
 * on whose API it is ({@link ApiOrigin}): this library's key syntax is checked on an API it serves
 * only.
 */
final class ContractFindings {
  private ContractFindings() {}

  /** The findings on a declared key header's {@code maxLength} and {@code pattern}. */
  static List<Finding> headerKey(
      ApiOrigin origin, @Nullable Integer maxLength, @Nullable String pattern) {
    if (origin == ApiOrigin.OWN) {
      return KeySyntaxCheck.check(maxLength, pattern);
    }
    // someone else's server takes the keys its own document describes: only a contradiction in
    // the document itself is a finding
    return maxLength != null && maxLength < 1 ? noKeyFits(maxLength) : List.of();
  }

  /** The findings on a key carried in the body. */
  static List<Finding> bodyKey(ApiOrigin origin, KeyLocator.BodyKey key) {
    List<Finding> findings = new ArrayList<>();
    if (!key.required()) {
      findings.add(
          new Finding(
              Outcome.WARNING,
              "body_key_optional",
              "the body property "
                  + key.name()
                  + " is optional: a request sent without it is not protected, so send it on"
                  + " every request, the same value on every retry"));
    }
    if (Boolean.TRUE.equals(key.schema().getDeprecated())) {
      findings.add(
          new Finding(
              Outcome.WARNING,
              "body_key_deprecated",
              "the body property "
                  + key.name()
                  + " is deprecated: read the document's description for what replaces it"));
    }
    Integer maxLength = key.schema().getMaxLength();
    if (maxLength != null && maxLength < 1) {
      findings.addAll(noKeyFits(maxLength));
    }
    if (origin == ApiOrigin.OWN) {
      findings.add(
          new Finding(
              Outcome.WARNING,
              "body_key_not_read_by_the_filter",
              "this library's filter takes the key from a header, never from the body: the"
                  + " application must claim "
                  + key.name()
                  + " itself (IdempotentCall), or the document should declare the header"));
    }
    return findings;
  }

  /** A keyed operation should document the answers to a reused key and to a key in flight. */
  static List<Finding> conflict(ApiOrigin origin, Operation operation) {
    Map<String, ApiResponse> responses =
        operation.getResponses() == null ? Map.of() : operation.getResponses();
    if (responses.containsKey("409") || responses.containsKey("422")) {
      return List.of();
    }
    String message =
        origin == ApiOrigin.OWN
            ? "takes the key but documents no 409 or 422: integrators need the answers to a key"
                + " reused with another request (idempotency_key_reused) and to a key still in"
                + " flight (idempotency_request_in_flight)"
            : "takes the key but documents no 409 or 422: the document does not say what a key"
                + " reused with another request, or one still in flight, is answered";
    return List.of(new Finding(Outcome.WARNING, "no_conflict_response", message));
  }

  /** A 429 or 503 should say when to come back. */
  static List<Finding> retryAfter(Operation operation, Components components) {
    List<Finding> findings = new ArrayList<>();
    if (operation.getResponses() == null) {
      return findings;
    }
    for (String status : List.of("429", "503")) {
      ApiResponse raw = operation.getResponses().get(status);
      if (raw == null) {
        continue;
      }
      if (!hasHeader(components.response(raw), "Retry-After")) {
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

  /**
   * The operation declares a key header under another name than the one looked for: the hint that
   * {@code --header} would find it.
   */
  static List<Finding> otherKeyHeader(List<String> names, String headerName) {
    if (names.isEmpty()) {
      return List.of();
    }
    return List.of(
        new Finding(
            Outcome.WARNING,
            "key_header_named_differently",
            "declares the key header "
                + names.get(0)
                + ", not "
                + headerName
                + ": run with --header "
                + names.get(0)
                + " (OpenApiAudit.Builder.headerName) to audit it"));
  }

  /**
   * The header a {@code key_header_named_differently} finding names, or null for another finding.
   */
  static @Nullable String otherHeaderNamed(Finding f) {
    String prefix = "declares the key header ";
    if (!f.code().equals("key_header_named_differently") || !f.message().startsWith(prefix)) {
      return null;
    }
    int comma = f.message().indexOf(',', prefix.length());
    return comma < 0 ? null : f.message().substring(prefix.length(), comma);
  }

  static boolean hasHeader(ApiResponse response, String name) {
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

  private static List<Finding> noKeyFits(int maxLength) {
    return List.of(
        new Finding(
            Outcome.FAILING,
            "key_max_length_below_1",
            "the key's maxLength is " + maxLength + ": no key fits it"));
  }
}
