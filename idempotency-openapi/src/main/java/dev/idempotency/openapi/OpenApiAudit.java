package dev.idempotency.openapi;

import dev.idempotency.openapi.internal.DocumentReader;
import dev.idempotency.openapi.internal.OperationAuditor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Judges every operation of an OpenAPI document for retry safety. {@link #builder()} starts one
 * with the defaults: the header {@code Idempotency-Key}, no convention. Immutable and thread-safe.
 *
 * <pre>{@code
 * AuditReport report = OpenApiAudit.builder().build().audit(Path.of("api.yaml"));
 * assertThat(report.failing()).isEmpty(); // in a project's own test: the build fails on a new unkeyed POST
 * }</pre>
 *
 * <p>The verdicts, in order of precedence: a safe method ({@link Verdict#SAFE_METHOD}); a declared
 * key header or a convention ({@link Verdict#ACCEPTS_KEY}); {@code x-retry-unsafe: true} with
 * {@code x-retry-unsafe-reason} ({@link Verdict#DOCUMENTED_RETRY_UNSAFE}); {@code x-idempotent:
 * true} ({@link Verdict#VERIFIED_IDEMPOTENT}); PUT and DELETE otherwise ({@link
 * Verdict#IDEMPOTENT_BY_METHOD}); every other method otherwise ({@link Verdict#NO_KEY}).
 */
public final class OpenApiAudit {
  private final String headerName;
  private final Set<String> conventionMethods;

  private OpenApiAudit(Builder b) {
    this.headerName = b.headerName;
    this.conventionMethods = Set.copyOf(b.conventionMethods);
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads {@code input} (a YAML or JSON file, or a directory whose root documents are read: the
   * files whose top level names {@code openapi}) and judges every operation.
   *
   * @throws OpenApiReadException with the parser's messages when a document is missing, unreadable
   *     or invalid
   */
  public AuditReport audit(Path input) {
    Objects.requireNonNull(input, "input");
    OperationAuditor auditor = new OperationAuditor(headerName, conventionMethods);
    List<OperationReport> operations = new ArrayList<>();
    List<String> documents = new ArrayList<>();
    for (DocumentReader.Document d : DocumentReader.read(input)) {
      documents.add(d.name());
      operations.addAll(auditor.audit(d.name(), d.api()));
    }
    return new AuditReport(headerName, documents, operations);
  }

  /** The key header this audit looks for. */
  public String headerName() {
    return headerName;
  }

  /** Builds an {@link OpenApiAudit}. Not thread-safe. */
  public static final class Builder {
    private String headerName = "Idempotency-Key";
    private final Set<String> conventionMethods = new LinkedHashSet<>();

    private Builder() {}

    /**
     * Sets the key header (default {@code Idempotency-Key}); a parameter declares it when its name
     * equals this ignoring case and it is {@code in: header}.
     */
    public Builder headerName(String headerName) {
      Objects.requireNonNull(headerName, "headerName");
      if (headerName.isBlank() || !headerName.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
        throw new IllegalArgumentException(
            "headerName must be an HTTP field name, but was \"" + headerName + "\"");
      }
      this.headerName = headerName;
      return this;
    }

    /**
     * Says that every operation of these methods takes the key without declaring it, as an API
     * whose docs state the key once for all its POSTs does (Stripe's does). Such operations are
     * {@link Verdict#ACCEPTS_KEY} with {@link KeyDeclaration#byConvention()}; the route table
     * ignores conventions (it holds what the document declares).
     *
     * @throws IllegalArgumentException if a method is safe (a key guards nothing there) or not
     *     alphabetic
     */
    public Builder keyConvention(String... methods) {
      for (String m : methods) {
        Objects.requireNonNull(m, "method");
        String upper = m.toUpperCase(Locale.ROOT);
        if (upper.isEmpty() || !upper.chars().allMatch(c -> c >= 'A' && c <= 'Z')) {
          throw new IllegalArgumentException("keyConvention method \"" + m + "\" is not a method");
        }
        if (Set.of("GET", "HEAD", "OPTIONS", "TRACE").contains(upper)) {
          throw new IllegalArgumentException(
              "keyConvention method " + upper + " is safe: a key guards nothing there");
        }
        conventionMethods.add(upper);
      }
      return this;
    }

    /** The audit. */
    public OpenApiAudit build() {
      return new OpenApiAudit(this);
    }
  }
}
