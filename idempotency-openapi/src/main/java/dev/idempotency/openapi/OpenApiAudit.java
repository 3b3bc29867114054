package dev.idempotency.openapi;

import dev.idempotency.openapi.internal.AuditRun;
import dev.idempotency.openapi.internal.DocumentReader;
import dev.idempotency.openapi.internal.Overlay;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Judges every operation of an OpenAPI document for retry safety. {@link #builder()} starts one
 * with the defaults: the header {@code Idempotency-Key}, no convention, no overlay, a strict read,
 * and the rules of an API this library serves ({@link ApiOrigin#OWN}). Immutable and thread-safe.
 *
 * <pre>{@code
 * AuditReport report = OpenApiAudit.builder().build().audit(Path.of("api.yaml"));
 * assertThat(report.failing()).isEmpty(); // in a project's own test: the build fails on a new unkeyed POST
 * }</pre>
 *
 * <p>The verdicts, in order of precedence: the caller's overlay, when it names the operation; a
 * safe method ({@link Verdict#SAFE_METHOD}); a declared key header or a convention ({@link
 * Verdict#ACCEPTS_KEY}); a key property in the body ({@link Verdict#ACCEPTS_KEY_IN_BODY}); {@code
 * x-retry-unsafe: true} with {@code x-retry-unsafe-reason} ({@link
 * Verdict#DOCUMENTED_RETRY_UNSAFE}); {@code x-idempotent: true} ({@link
 * Verdict#VERIFIED_IDEMPOTENT}); PUT and DELETE otherwise ({@link Verdict#IDEMPOTENT_BY_METHOD}); a
 * POST shaped like a read ({@link Verdict#LIKELY_READ_ONLY}); every other method otherwise ({@link
 * Verdict#NO_KEY}).
 */
public final class OpenApiAudit {
  private final String headerName;
  private final Set<String> conventionMethods;
  private final ApiOrigin origin;
  private final boolean lenient;
  private final @Nullable Overlay overlay;

  private OpenApiAudit(Builder b) {
    this.headerName = b.headerName;
    this.conventionMethods = Set.copyOf(b.conventionMethods);
    this.origin = b.origin;
    this.lenient = b.lenient;
    Path overlayFile = b.overlay;
    this.overlay = overlayFile == null ? null : Overlay.read(overlayFile);
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
   *     or (unless lenient) invalid
   * @throws IllegalArgumentException when an overlay entry names no operation of the documents
   */
  public AuditReport audit(Path input) {
    Objects.requireNonNull(input, "input");
    AuditRun.Result run =
        AuditRun.run(
            DocumentReader.read(input, lenient), headerName, conventionMethods, origin, overlay);
    return new AuditReport(headerName, origin, run.documents(), run.operations(), run.unread());
  }

  /** Whose API this audit takes the document for. */
  public ApiOrigin origin() {
    return origin;
  }

  /** The key header this audit looks for. */
  public String headerName() {
    return headerName;
  }

  /** Builds an {@link OpenApiAudit}. Not thread-safe. */
  public static final class Builder {
    private String headerName = "Idempotency-Key";
    private final Set<String> conventionMethods = new LinkedHashSet<>();
    private ApiOrigin origin = ApiOrigin.OWN;
    private boolean lenient;
    private @Nullable Path overlay;

    private Builder() {}

    /**
     * Whose API the document describes (default {@link ApiOrigin#OWN}, served by this library):
     * {@link ApiOrigin#THIRD_PARTY} applies only what the document says, not this library's key
     * syntax, and its Markdown states no answer or window of this library's.
     */
    public Builder origin(ApiOrigin origin) {
      this.origin = Objects.requireNonNull(origin, "origin");
      return this;
    }

    /**
     * Reads leniently (default false): a document the parser has messages about is audited as far
     * as it was read, and the messages are the report's {@link AuditReport#unread()}, instead of
     * the document being refused.
     */
    public Builder lenient(boolean lenient) {
      this.lenient = lenient;
      return this;
    }

    /**
     * The caller's verdicts on operations the document says nothing useful about: a file of
     * operationId or {@code METHOD /path} to {@code safe}, {@code keyed} or {@code unsafe}, each
     * with its reason ({@code docs/openapi.md} shows the format). Read by {@link #build()}.
     */
    public Builder overlay(Path overlay) {
      this.overlay = Objects.requireNonNull(overlay, "overlay");
      return this;
    }

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

    /**
     * The audit.
     *
     * @throws IllegalArgumentException when the overlay cannot be read or an entry is malformed,
     *     naming the file and the entry
     */
    public OpenApiAudit build() {
      return new OpenApiAudit(this);
    }
  }
}
