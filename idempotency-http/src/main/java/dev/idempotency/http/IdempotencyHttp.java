package dev.idempotency.http;

import dev.idempotency.Fingerprint;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.InvalidIdempotencyKeyException;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.internal.Problems;
import dev.idempotency.http.internal.StatusEndpoint;
import dev.idempotency.http.internal.StoringRules;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP contract of idempotency keys, independent of any web framework: one instance per
 * application, built once, shared by every request. An adapter (the servlet filter) turns each
 * request into an {@link HttpRequestView}, calls {@link #handle}, and either runs its application
 * untouched ({@link HttpResult.PassThrough}) or writes the {@link HttpResult.Respond response}.
 *
 * <pre>{@code
 * IdempotencyHttp http = IdempotencyHttp.builder(engine)
 *     .endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/payments/**", "POST"))
 *     .mismatchStatus(MismatchStatus.UNPROCESSABLE_CONTENT)
 *     .build();
 * }</pre>
 *
 * <p>For a guarded request, in this order: the key header is read and validated ({@code 400
 * idempotency_key_missing} / {@code idempotency_key_invalid}); the scope is resolved from the
 * caller ({@code 401 idempotency_scope_unresolved} when there is none); the body is read up to its
 * limit ({@code 413 request_too_large}, before anything is claimed); the request is fingerprinted;
 * then the engine claims the key and runs the application at most once. Every outcome maps to the
 * contract table of {@code docs/http.md}. The settings and their defaults are listed at {@link
 * IdempotencyHttpBuilder}.
 *
 * <p>Immutable and thread-safe.
 */
public final class IdempotencyHttp {
  private static final System.Logger LOG = System.getLogger(IdempotencyHttp.class.getName());

  /** The header a replay carries, with the value {@code true}. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** The media type of every problem body. */
  public static final String PROBLEM_JSON = "application/problem+json";

  /** The response headers stored for replay by default (matched ignoring case). */
  public static final List<String> DEFAULT_STORED_HEADERS =
      List.of(
          "Content-Type",
          "Content-Language",
          "Content-Location",
          "Content-Disposition",
          "Location",
          "Cache-Control",
          "Expires",
          "ETag",
          "Last-Modified",
          "Link",
          "Retry-After",
          "Vary");

  /** The default limit of request and stored response bodies: 1 MiB. */
  public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

  private final IdempotencyEngine engine;
  private final String headerName;
  private final List<EndpointRule> endpoints;
  private final ScopeResolver callerScope; // the resolver, then the anonymous scope
  private final AtomicBoolean filterOrderReported = new AtomicBoolean();
  private final Optional<Scope> anonymousScope;
  private final FingerprintStrategy fingerprint;
  private final MismatchStatus mismatchStatus;
  private final InFlightResponse inFlightResponse;
  private final String statusPath;
  private final List<String> storedHeaderNames;
  private final boolean storeSetCookie;
  private final long maxRequestBodyBytes;
  private final int maxStoredResponseBytes;
  private final OversizedResponse oversizedResponse;
  private final Problems problems;
  private final StoringRules storingRules;
  private final StatusEndpoint statusEndpoint;
  private final OutcomeResponses outcomes;

  IdempotencyHttp(IdempotencyHttpBuilder b) {
    this.engine = b.engine;
    this.headerName = b.headerName;
    boolean storeRunsOneTransaction = IdempotencyHttpBuilder.runsOneTransaction(engine.store());
    this.endpoints =
        (b.endpoints.isEmpty()
                ? List.of(EndpointRule.of(KeyRequirement.REQUIRED, "/**", "POST", "PATCH"))
                : b.endpoints)
            .stream().map(rule -> rule.decided(storeRunsOneTransaction)).toList();
    this.anonymousScope = Optional.ofNullable(b.anonymousScope);
    ScopeResolver resolver = b.scopeResolver;
    this.callerScope =
        request -> {
          Optional<Scope> resolved = resolver.resolve(request);
          return resolved.isPresent() ? resolved : anonymousScope;
        };
    this.fingerprint = b.fingerprint;
    this.mismatchStatus = b.mismatchStatus;
    this.inFlightResponse = b.inFlightResponse;
    this.statusPath = b.statusPath;
    this.storedHeaderNames = List.copyOf(b.storedHeaders);
    TreeSet<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    names.addAll(b.storedHeaders);
    if (b.storeSetCookie) {
      names.add("Set-Cookie");
    }
    this.storeSetCookie = b.storeSetCookie;
    this.maxRequestBodyBytes = b.maxRequestBodyBytes;
    this.maxStoredResponseBytes = b.maxStoredResponseBytes;
    this.oversizedResponse = b.oversizedResponse;
    this.problems = new Problems(b.problemTypeBase, b.storeUnavailableRetryAfter);
    // header names are tokens: ASCII, so case-folding is exact
    this.storingRules =
        new StoringRules(
            Collections.unmodifiableSet(names), b.bodyRedactor, maxStoredResponseBytes);
    this.statusEndpoint = new StatusEndpoint(engine, statusPath, callerScope, problems);
    this.outcomes =
        new OutcomeResponses(
            engine,
            storingRules,
            oversizedResponse,
            problems,
            inFlightResponse,
            statusEndpoint,
            mismatchStatus);
  }

  /** Starts building a handler over {@code engine}, with every setting at its default. */
  public static IdempotencyHttpBuilder builder(IdempotencyEngine engine) {
    return new IdempotencyHttpBuilder(Objects.requireNonNull(engine, "engine"));
  }

  /**
   * Handles one request.
   *
   * @param request the request
   * @param downstream the application, run at most once, only when this request wins the key (more
   *     than once only in one transaction, after a serialization failure or deadlock rolled the
   *     previous run back); a {@link TransactionalDownstream} where a rule runs in one transaction
   *     (a plain {@code Downstream} runs a rule that chose no lifecycle stepped)
   * @return pass through, or the response to write
   * @throws ApplicationFailedException if the application threw; the adapter rethrows its cause
   * @throws IOException if the request body cannot be read
   * @throws InterruptedException if interrupted while waiting on an in-flight key (bounded-wait
   *     policy)
   * @throws IllegalStateException if the rule that matches chose {@link
   *     EndpointRule#inOneTransaction()} and {@code downstream} is not a {@link
   *     TransactionalDownstream}; nothing was read or claimed
   */
  public HttpResult handle(HttpRequestView request, Downstream downstream)
      throws ApplicationFailedException, IOException, InterruptedException {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(downstream, "downstream");
    if (inFlightResponse == InFlightResponse.ACCEPTED && statusEndpoint.serves(request)) {
      return statusEndpoint.answer(request);
    }
    String method = request.method();
    String path = request.path();
    EndpointRule rule = null;
    for (EndpointRule r : endpoints) {
      if (r.matches(method, path)) {
        rule = r;
        break;
      }
    }
    if (rule == null) {
      return new HttpResult.PassThrough("no endpoint rule matches " + method + " " + path);
    }
    if (rule.runsInOneTransaction() && !(downstream instanceof TransactionalDownstream)) {
      if (rule.inOneTransactionByDefault()) {
        // the rule chose no lifecycle: one transaction is only the default where the adapter can
        // hand the application the transaction
        rule = rule.stepped();
      } else {
        throw new IllegalStateException(
            "endpoint "
                + rule
                + " runs its requests in one transaction (EndpointRule.inOneTransaction()), but the"
                + " adapter's Downstream cannot hand the application the transaction: it must be a"
                + " TransactionalDownstream");
      }
    }

    List<String> keyHeaders = request.headers(headerName);
    if (keyHeaders.isEmpty()) {
      return rule.requirement() == KeyRequirement.OPTIONAL
          ? new HttpResult.PassThrough("no " + headerName + " header, and it is optional here")
          : reject(
              problems.keyMissing(
                  method
                      + " "
                      + path
                      + " requires an "
                      + headerName
                      + " header: mint one key"
                      + " per logical operation (for example a UUID) and send the same key on every retry of it"));
    }
    if (keyHeaders.size() > 1) {
      return reject(
          problems.invalidKey(
              "multiple_values",
              "the "
                  + headerName
                  + " header must be sent once, but was sent "
                  + keyHeaders.size()
                  + " times"));
    }
    IdempotencyKey key;
    try {
      key = IdempotencyKey.parseHeader(keyHeaders.get(0));
    } catch (InvalidIdempotencyKeyException e) {
      return reject(problems.invalidKey(e));
    }

    Optional<Scope> scope = callerScope.resolve(request);
    if (scope.isEmpty()) {
      boolean credentialsSent = !request.headers("Authorization").isEmpty();
      if (credentialsSent && !filterOrderReported.getAndSet(true)) {
        LOG.log(
            System.Logger.Level.WARNING,
            "A request to "
                + request.path()
                + " sent an Authorization header, yet no authenticated caller reached the idempotency"
                + " filter: it most likely runs before authentication. Map it after the authentication"
                + " filter (Spring Boot's auto-configuration orders it after Spring Security). Until"
                + " then every keyed request is answered 401 idempotency_scope_unresolved. (Said once.)");
      }
      return reject(problems.unresolvedScope(credentialsSent));
    }

    OptionalLong declared = request.contentLength();
    if (declared.isPresent() && declared.getAsLong() > maxRequestBodyBytes) {
      return reject(problems.tooLarge(declared.getAsLong() + " bytes", maxRequestBodyBytes));
    }
    Optional<byte[]> body = readBounded(request);
    if (body.isEmpty()) {
      return reject(
          problems.tooLarge("more than " + maxRequestBodyBytes + " bytes", maxRequestBodyBytes));
    }

    Fingerprint fp = fingerprint.fingerprint(request, body.get());
    return outcomes.run(request, rule, new RecordId(scope.get(), key), fp, body.get(), downstream);
  }

  /**
   * A refusal: {@code response}, sent as it is, run nothing (here and in {@link OutcomeResponses}).
   */
  static HttpResult reject(StoredResponse response) {
    return new HttpResult.Respond(response, HttpResult.Disposition.REJECTED);
  }

  /** The body, or empty when it is longer than {@code maxRequestBodyBytes}. */
  private Optional<byte[]> readBounded(HttpRequestView request) throws IOException {
    // not closed: the stream belongs to the framework
    InputStream in = request.body();
    byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8L, maxRequestBodyBytes + 1));
    return bytes.length > maxRequestBodyBytes ? Optional.empty() : Optional.of(bytes);
  }

  /**
   * The response an adapter captures, stores and sends for the application's own error, such as a
   * servlet's {@code sendError(status, message)}: status {@code status}, {@code Content-Type:
   * application/problem+json}, and the RFC 9457 body {@code {"type":"about:blank","title":<reason
   * phrase>,"status":<status>,"detail":<message>}} ({@code detail} only when {@code message} is
   * neither null nor empty), escaped as every problem body of the contract. Building the body here,
   * not in the container's error page, makes the stored bytes the sent bytes.
   *
   * @param status the status, 100 to 999
   * @param message the application's message, or null
   * @return the response
   * @throws IllegalArgumentException if {@code status} is out of range
   */
  public static StoredResponse applicationError(int status, @Nullable String message) {
    return Problems.applicationError(status, message);
  }

  // The settings below are read by this package's tests, which check the documented defaults; an
  // application configures them through the builder and has no use for reading them back.

  /** The engine the handler runs requests through. */
  IdempotencyEngine engine() {
    return engine;
  }

  /** The key header's name. */
  String headerName() {
    return headerName;
  }

  /** The endpoint rules, first match wins. */
  public List<EndpointRule> endpoints() {
    return endpoints;
  }

  /** The mismatch status. */
  MismatchStatus mismatchStatus() {
    return mismatchStatus;
  }

  /** What a request gets while its key is in flight under another request. */
  InFlightResponse inFlightResponse() {
    return inFlightResponse;
  }

  /** The status endpoint's path (used with {@link InFlightResponse#ACCEPTED}). */
  String statusPath() {
    return statusPath;
  }

  /** The response headers stored for replay (Set-Cookie only if {@link #storesSetCookie()}). */
  List<String> storedHeaders() {
    return storedHeaderNames;
  }

  /** Whether Set-Cookie headers are stored and replayed. */
  boolean storesSetCookie() {
    return storeSetCookie;
  }

  /** The request body limit. */
  long maxRequestBodyBytes() {
    return maxRequestBodyBytes;
  }

  /** The storable response body limit. */
  public int maxStoredResponseBytes() {
    return maxStoredResponseBytes;
  }

  /** What happens to a response over the storable limit. */
  OversizedResponse oversizedResponse() {
    return oversizedResponse;
  }

  /** The anonymous scope, when configured. */
  Optional<Scope> anonymousScope() {
    return anonymousScope;
  }

  @Override
  public String toString() {
    return "IdempotencyHttp[header="
        + headerName
        + ", endpoints="
        + endpoints
        + ", mismatch="
        + mismatchStatus
        + ", inFlight="
        + inFlightResponse
        + ", maxRequestBodyBytes="
        + maxRequestBodyBytes
        + ", maxStoredResponseBytes="
        + maxStoredResponseBytes
        + ", oversized="
        + oversizedResponse
        + "]";
  }
}
