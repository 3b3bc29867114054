package dev.idempotency.http;

import dev.idempotency.Execution;
import dev.idempotency.Fingerprint;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.InvalidIdempotencyKeyException;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Outcome;
import dev.idempotency.http.internal.ProblemJson;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreUnavailableException;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.spi.TransactionalWork;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HTTP contract of idempotency keys, independent of any web framework: one instance per application, built
 * once, shared by every request. An adapter (the servlet filter) turns each request into an
 * {@link HttpRequestView}, calls {@link #handle}, and either runs its application untouched
 * ({@link HttpResult.PassThrough}) or writes the {@link HttpResult.Respond response}.
 *
 * <pre>{@code
 * IdempotencyHttp http = IdempotencyHttp.builder(engine)
 *     .endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/payments/**", "POST"))
 *     .mismatchStatus(MismatchStatus.UNPROCESSABLE_CONTENT)
 *     .build();
 * }</pre>
 *
 * <p>For a guarded request, in this order: the key header is read and validated ({@code 400
 * idempotency_key_missing} / {@code idempotency_key_invalid}); the scope is resolved from the caller
 * ({@code 401 idempotency_scope_unresolved} when there is none); the body is read up to its limit ({@code 413
 * request_too_large}, before anything is claimed); the request is fingerprinted; then the engine claims the key and
 * runs the application at most once. Every outcome maps to the contract table of {@code docs/http.md}.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>{@code headerName}</td><td>{@code Idempotency-Key}</td></tr>
 *   <tr><td>{@code endpoints}</td><td>POST and PATCH on every path, key required</td></tr>
 *   <tr><td>{@code scopeResolver}</td><td>{@link ScopeResolver#principal()}</td></tr>
 *   <tr><td>{@code anonymousScope}</td><td>none: an unauthenticated guarded request gets 401</td></tr>
 *   <tr><td>{@code fingerprint}</td><td>{@link FingerprintStrategy#methodPathBody()}</td></tr>
 *   <tr><td>{@code mismatchStatus}</td><td>{@link MismatchStatus#CONFLICT} (409)</td></tr>
 *   <tr><td>{@code inFlightResponse}</td><td>{@link InFlightResponse#CONFLICT} (409 + Retry-After)</td></tr>
 *   <tr><td>{@code statusPath}</td><td>{@code /idempotency-requests} (with {@link InFlightResponse#ACCEPTED})</td></tr>
 *   <tr><td>{@code storedHeaders}</td><td>{@link #DEFAULT_STORED_HEADERS}; never Set-Cookie unless opted in</td></tr>
 *   <tr><td>{@code bodyRedactor}</td><td>{@link BodyRedactor#NONE}</td></tr>
 *   <tr><td>{@code maxRequestBodyBytes}</td><td>1 MiB</td></tr>
 *   <tr><td>{@code maxStoredResponseBytes}</td><td>1 MiB</td></tr>
 *   <tr><td>{@code oversizedResponse}</td><td>{@link OversizedResponse#STORE_MARKER}</td></tr>
 *   <tr><td>{@code storeUnavailableRetryAfter}</td><td>5 s</td></tr>
 *   <tr><td>{@code problemTypeBase}</td><td>{@code https://idempotency.dev/problems/}</td></tr>
 * </table>
 *
 * <p>Immutable and thread-safe.
 *
 * <p>One class of about 900 lines: the request pipeline, plus its builder, the outcome-to-problem mapping and the
 * status endpoint with its percent codec. Those three are the seams along which it splits into {@code internal}
 * classes; the pipeline stays here.
 */
public final class IdempotencyHttp {
  private static final System.Logger LOG = System.getLogger(IdempotencyHttp.class.getName());

  /** The header a replay carries, with the value {@code true}. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";
  /** The media type of every problem body. */
  public static final String PROBLEM_JSON = "application/problem+json";
  /** The response headers stored for replay by default (matched ignoring case). */
  public static final List<String> DEFAULT_STORED_HEADERS = List.of("Content-Type", "Content-Language",
      "Content-Location", "Content-Disposition", "Location", "Cache-Control", "Expires", "ETag", "Last-Modified",
      "Link", "Retry-After", "Vary");
  /** The default limit of request and stored response bodies: 1 MiB. */
  public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

  private final IdempotencyEngine engine;
  private final String headerName;
  private final List<EndpointRule> endpoints;
  private final ScopeResolver scopeResolver;
  private final Optional<Scope> anonymousScope;
  private final FingerprintStrategy fingerprint;
  private final MismatchStatus mismatchStatus;
  private final InFlightResponse inFlightResponse;
  private final String statusPath;
  private final Set<String> storedHeaders; // case-insensitive
  private final List<String> storedHeaderNames;
  private final boolean storeSetCookie;
  private final BodyRedactor bodyRedactor;
  private final long maxRequestBodyBytes;
  private final int maxStoredResponseBytes;
  private final OversizedResponse oversizedResponse;
  private final Duration storeUnavailableRetryAfter;
  private final String problemTypeBase;
  /** The 503 answer, the same for every request: built once. */
  private final StoredResponse storeUnavailable;

  private IdempotencyHttp(Builder b) {
    this.engine = b.engine;
    this.headerName = b.headerName;
    this.endpoints = List.copyOf(b.endpoints.isEmpty() ? defaultEndpoints() : b.endpoints);
    this.scopeResolver = b.scopeResolver;
    this.anonymousScope = Optional.ofNullable(b.anonymousScope);
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
    this.storedHeaders = Collections.unmodifiableSet(names); // header names are tokens: ASCII, so case-folding is exact
    this.storeSetCookie = b.storeSetCookie;
    this.bodyRedactor = b.bodyRedactor;
    this.maxRequestBodyBytes = b.maxRequestBodyBytes;
    this.maxStoredResponseBytes = b.maxStoredResponseBytes;
    this.oversizedResponse = b.oversizedResponse;
    this.storeUnavailableRetryAfter = b.storeUnavailableRetryAfter;
    this.problemTypeBase = b.problemTypeBase;
    this.storeUnavailable = withRetryAfter(problem(ProblemCode.IDEMPOTENCY_STORE_UNAVAILABLE,
        ProblemCode.IDEMPOTENCY_STORE_UNAVAILABLE.defaultStatus(), "the idempotency key store cannot be reached, so"
            + " the request was not processed; retry with the same key after the Retry-After delay", null),
        storeUnavailableRetryAfter);
  }

  private static List<EndpointRule> defaultEndpoints() {
    return List.of(EndpointRule.of(KeyRequirement.REQUIRED, "/**", "POST", "PATCH"));
  }

  /** Starts building a handler over {@code engine}, with every setting at its default. */
  public static Builder builder(IdempotencyEngine engine) {
    return new Builder(Objects.requireNonNull(engine, "engine"));
  }

  /**
   * Handles one request.
   *
   * @param request the request
   * @param downstream the application, run at most once, only when this request wins the key
   * @return pass through, or the response to write
   * @throws ApplicationFailedException if the application threw; the adapter rethrows its cause
   * @throws IOException if the request body cannot be read
   * @throws InterruptedException if interrupted while waiting on an in-flight key (bounded-wait policy)
   */
  public HttpResult handle(HttpRequestView request, Downstream downstream)
      throws ApplicationFailedException, IOException, InterruptedException {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(downstream, "downstream");
    String method = request.method();
    String path = request.path();
    if (inFlightResponse == InFlightResponse.ACCEPTED && method.equals("GET") && path.equals(statusPath)) {
      return status(request, request.query().orElse(""));
    }
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

    List<String> keyHeaders = request.headers(headerName);
    if (keyHeaders.isEmpty()) {
      return rule.requirement() == KeyRequirement.OPTIONAL
          ? new HttpResult.PassThrough("no " + headerName + " header, and it is optional here")
          : reject(problem(ProblemCode.IDEMPOTENCY_KEY_MISSING, ProblemCode.IDEMPOTENCY_KEY_MISSING.defaultStatus(),
              method + " " + path + " requires an " + headerName + " header: mint one key per logical operation"
                  + " (for example a UUID) and send the same key on every retry of it", null));
    }
    if (keyHeaders.size() > 1) {
      return reject(invalidKey("multiple_values",
          "the " + headerName + " header must be sent once, but was sent " + keyHeaders.size() + " times"));
    }
    IdempotencyKey key;
    try {
      key = IdempotencyKey.parseHeader(keyHeaders.get(0));
    } catch (InvalidIdempotencyKeyException e) {
      return reject(invalidKey(e.rule().name().toLowerCase(Locale.ROOT), e.getMessage()));
    }

    Optional<Scope> scope = scope(request);
    if (scope.isEmpty()) {
      return reject(unresolvedScope());
    }

    OptionalLong declared = request.contentLength();
    if (declared.isPresent() && declared.getAsLong() > maxRequestBodyBytes) {
      return reject(tooLarge(declared.getAsLong() + " bytes"));
    }
    byte[] body = readBounded(request);
    if (body == null) {
      return reject(tooLarge("more than " + maxRequestBodyBytes + " bytes"));
    }

    Fingerprint fp = fingerprint.fingerprint(request, body);
    RecordId id = new RecordId(scope.get(), key);
    return execute(request, id, fp, body, downstream);
  }

  private HttpResult execute(HttpRequestView request, RecordId id, Fingerprint fp, byte[] body,
      Downstream downstream) throws ApplicationFailedException, InterruptedException {
    StoredResponse[] live = new StoredResponse[1];
    HandlerExecution[] handed = new HandlerExecution[1];
    Outcome outcome;
    try {
      outcome = engine.execute(id, fp, execution -> {
        handed[0] = new HandlerExecution(execution);
        StoredResponse response = Objects.requireNonNull(downstream.run(body, handed[0]),
            "downstream returned null");
        live[0] = response;
        // a completion the application committed itself is the stored response: the engine keeps it
        Optional<StoredResponse> committed = handed[0].committed();
        return committed.isPresent() ? committed.get() : storable(response, execution);
      });
    } catch (OperationFailedException e) {
      if (live[0] != null) {
        // the application returned; what failed is storing its response, and the caller still gets that response
        if (e.getCause() instanceof NotStored notStored) {
          if (e.keyReleased()) {
            LOG.log(System.Logger.Level.INFO, () -> "response of " + id + " exceeds maxStoredResponseBytes ("
                + maxStoredResponseBytes + ") and is not stored (" + notStored.reason + "); key released, a retry"
                + " runs anew");
          } else {
            LOG.log(System.Logger.Level.WARNING, () -> "response of " + id + " exceeds maxStoredResponseBytes ("
                + maxStoredResponseBytes + ") and is not stored (" + notStored.reason + "), but the key could not"
                + " be released: it stays in flight, retries get 409 until its lease expires, then run anew");
          }
        } else {
          LOG.log(System.Logger.Level.WARNING, "could not store the not-stored marker of " + id + "; the key stays"
              + " in flight and a retry after the lease expires may run the request again", e.getCause());
        }
        return new HttpResult.Respond(live[0], HttpResult.Disposition.EXECUTED);
      }
      throw new ApplicationFailedException(e.getCause(), e.keyReleased());
    } catch (LeaseLostException e) {
      if (live[0] == null) {
        throw e;
      }
      // The work is done, but another owner took the key over (this owner was paused past its lease) and the
      // result could not be stored. The caller still gets what the application answered.
      LOG.log(System.Logger.Level.WARNING, "result of " + id + " not stored: " + e.getMessage());
      return new HttpResult.Respond(live[0], HttpResult.Disposition.EXECUTED);
    }
    if (outcome instanceof Outcome.Executed executed) {
      Optional<StoredResponse> committed = handed[0] == null ? Optional.empty() : handed[0].committed();
      if (committed.isPresent()) {
        return new HttpResult.Respond(committedAnswer(id, committed.get(), handed[0]),
            HttpResult.Disposition.EXECUTED);
      }
      return new HttpResult.Respond(live[0] != null ? live[0] : executed.response(), HttpResult.Disposition.EXECUTED);
    }
    if (outcome instanceof Outcome.Replayed replayed) {
      return new HttpResult.Respond(replay(replayed.response()), HttpResult.Disposition.REPLAYED);
    }
    if (outcome instanceof Outcome.InFlightConflict conflict) {
      if (inFlightResponse == InFlightResponse.ACCEPTED) {
        return reject(accepted(request, id.key(), conflict.retryAfter()));
      }
      return reject(withRetryAfter(problem(ProblemCode.IDEMPOTENCY_REQUEST_IN_FLIGHT,
          ProblemCode.IDEMPOTENCY_REQUEST_IN_FLIGHT.defaultStatus(),
          "a request with this idempotency key is still being processed; retry after the Retry-After delay to"
              + " receive its result", null), conflict.retryAfter()));
    }
    if (outcome instanceof Outcome.Mismatch mismatch) {
      return reject(problem(ProblemCode.IDEMPOTENCY_KEY_REUSED, mismatchStatus.status(),
          "this idempotency key was already used for a different request (another method, path or body; the"
              + " earlier request is " + (mismatch.existingState() == KeyState.COMPLETE ? "complete" : "in flight")
              + "); mint a new key for a new operation", null));
    }
    Outcome.StoreUnavailable down = (Outcome.StoreUnavailable) outcome;
    LOG.log(System.Logger.Level.WARNING, "idempotency store unavailable for " + id + "; answered 503",
        down.cause());
    return reject(storeUnavailable());
  }

  /**
   * What the first caller gets when the application committed its completion through a transactional store: the
   * response its work returned when it went through {@link #completeWith} (whose stored form a replay returns, as
   * for every first response), else the committed response itself, so that the first answer is the replay's.
   * A response committed around this handler's rules is stored as it is; the log says which rule it breaks.
   */
  private StoredResponse committedAnswer(RecordId id, StoredResponse committed, HandlerExecution execution) {
    if (execution.answer().isPresent()) {
      return execution.answer().get();
    }
    List<String> broken = new ArrayList<>();
    committed.headers().keySet().stream().filter(name -> !storedHeaders.contains(name))
        .forEach(name -> broken.add("header " + name + " is not in storedHeaders"));
    if (committed.bodyLength() > maxStoredResponseBytes) {
      broken.add("its body (" + committed.bodyLength() + " bytes) exceeds maxStoredResponseBytes ("
          + maxStoredResponseBytes + ")");
    }
    if (!broken.isEmpty()) {
      LOG.log(System.Logger.Level.ERROR, () -> "the response committed for " + id + " bypassed the HTTP rules ("
          + String.join("; ", broken) + ") and is stored and replayed as committed; commit the completion through"
          + " IdempotencyHttp.completeWith, which applies storedHeaders, bodyRedactor and maxStoredResponseBytes");
    }
    return committed;
  }

  /**
   * Commits the application's business writes and its completion in one transaction of {@code store}, with the
   * response stored by this handler's rules: the allowlisted headers, the redacted body, and the not-stored marker
   * when that body is over {@code maxStoredResponseBytes} (whatever {@link OversizedResponse}: the business writes
   * commit with it, so releasing the key would let a retry repeat them). The first caller receives the response
   * {@code work} returned, whatever the application wrote otherwise; a replay returns its stored form, as for every
   * request. Call it from the application, with the execution it was handed, as its last step.
   *
   * @param <T> the store's transaction handle, for example {@code java.sql.Connection}
   * @param store the transactional store the engine runs on
   * @param execution the execution the application received ({@link Downstream#run}, or the servlet request
   *     attribute)
   * @param work the business writes on the transaction; returns the complete response, every header included
   * @return the response the first caller receives (what {@code work} returned)
   * @throws Exception whatever {@code work} or the store threw; nothing was committed then
   */
  public <T> StoredResponse completeWith(TransactionalKeyStore<T> store, Execution execution,
      TransactionalWork<T, StoredResponse> work) throws Exception {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(execution, "execution");
    Objects.requireNonNull(work, "work");
    StoredResponse[] returned = new StoredResponse[1];
    store.completeWith(execution, tx -> {
      returned[0] = Objects.requireNonNull(work.run(tx), "the work returned null instead of a response");
      StoredResponse filtered = filtered(returned[0]);
      return filtered.bodyLength() > maxStoredResponseBytes
          ? notStoredMarker(returned[0].status(), filtered.bodyLength()) : filtered;
    });
    if (execution instanceof HandlerExecution handler) {
      handler.answer(returned[0]);
    }
    return returned[0];
  }

  /** {@code live} with only the allowlisted headers and the redacted body. */
  private StoredResponse filtered(StoredResponse live) {
    Map<String, List<String>> kept = new LinkedHashMap<>();
    live.headers().forEach((name, values) -> {
      if (storedHeaders.contains(name)) {
        kept.put(name, values);
      }
    });
    byte[] redacted = Objects.requireNonNull(bodyRedactor.redact(StoredResponse.of(live.status(), kept,
        live.body())), "bodyRedactor returned null");
    return StoredResponse.of(live.status(), kept, redacted);
  }

  /**
   * The response to store for {@code live}: allowlisted headers, redacted body, or the marker when too large.
   *
   * <p>The marker is committed here, not returned to the engine: the engine's stored-response policy would judge
   * the marker's own status (500), and a policy that excludes 500 would release a key whose side effect happened.
   * The policy judges the application's status instead: when it excludes that status (a 503, "not processed"),
   * the oversized response releases the key as a small one would.
   */
  private StoredResponse storable(StoredResponse live, Execution execution) throws NotStored {
    StoredResponse stored = filtered(live);
    if (stored.bodyLength() > maxStoredResponseBytes) {
      if (oversizedResponse == OversizedResponse.RELEASE_KEY) {
        throw new NotStored("oversizedResponse=RELEASE_KEY");
      }
      if (!engine.config().storedResponsePolicy().shouldStore(live)) {
        throw new NotStored("storedResponsePolicy excludes status " + live.status());
      }
      StoredResponse marker = notStoredMarker(live.status(), stored.bodyLength());
      engine.store().complete(execution.recordId(), execution.fence(), marker, execution.now());
      execution.completionCommitted(marker);
      return marker;
    }
    return stored;
  }

  private StoredResponse notStoredMarker(int status, int length) {
    return problem(ProblemCode.IDEMPOTENCY_RESPONSE_NOT_STORED,
        ProblemCode.IDEMPOTENCY_RESPONSE_NOT_STORED.defaultStatus(),
        "the request with this idempotency key was processed (status " + status + "), but its response ("
            + length + " bytes) exceeded the storable limit (" + maxStoredResponseBytes + " bytes) and"
            + " cannot be replayed; retrying will not process it again", null);
  }

  /**
   * Thrown inside the operation so that the engine releases the key of an oversized response (if nothing
   * committed), with the reason for the log.
   */
  private static final class NotStored extends Exception {
    private static final long serialVersionUID = 1L;
    final String reason;

    NotStored(String reason) {
      super("response exceeds maxStoredResponseBytes: " + reason, null, false, false);
      this.reason = reason;
    }
  }

  private static StoredResponse replay(StoredResponse stored) {
    Map<String, List<String>> headers = new LinkedHashMap<>(stored.headers());
    headers.put(REPLAYED_HEADER, List.of("true"));
    return StoredResponse.of(stored.status(), headers, stored.body());
  }

  private HttpResult status(HttpRequestView request, String query) {
    String encodedKey = null;
    for (String pair : query.split("&")) {
      if (pair.startsWith("key=")) {
        if (encodedKey != null) {
          return reject(invalidKey("multiple_values", "the status URL must have exactly one key parameter"));
        }
        encodedKey = pair.substring(4);
      }
    }
    if (encodedKey == null) {
      return reject(problem(ProblemCode.IDEMPOTENCY_KEY_MISSING, ProblemCode.IDEMPOTENCY_KEY_MISSING.defaultStatus(),
          "the status endpoint needs the key as its query parameter: " + statusPath + "?key=...", null));
    }
    IdempotencyKey key;
    try {
      key = IdempotencyKey.of(percentDecode(encodedKey));
    } catch (InvalidIdempotencyKeyException e) {
      return reject(invalidKey(e.rule().name().toLowerCase(Locale.ROOT), e.getMessage()));
    } catch (IllegalArgumentException e) {
      return reject(invalidKey("malformed_percent_encoding", "the status URL's key is not percent-encoded"));
    }
    Optional<Scope> scope = scope(request);
    if (scope.isEmpty()) {
      return reject(unresolvedScope());
    }
    Optional<RecordSnapshot> record;
    try {
      record = engine.store().lookup(new RecordId(scope.get(), key));
    } catch (StoreUnavailableException e) {
      LOG.log(System.Logger.Level.WARNING, "idempotency store unavailable for a status lookup; answered 503", e);
      return reject(storeUnavailable());
    }
    Instant now = engine.config().clock().instant();
    if (record.isPresent() && record.get().state() == KeyState.IN_FLIGHT) {
      Duration left = Duration.between(now, record.get().leaseExpiresAt().orElse(now));
      return new HttpResult.Respond(accepted(request, key, left), HttpResult.Disposition.STATUS);
    }
    if (record.isPresent()
        && now.isBefore(record.get().completedAt().orElseThrow().plus(engine.config().replayWindow()))) {
      return new HttpResult.Respond(replay(record.get().response().orElseThrow()), HttpResult.Disposition.STATUS);
    }
    return new HttpResult.Respond(problem(ProblemCode.IDEMPOTENCY_REQUEST_NOT_FOUND,
        ProblemCode.IDEMPOTENCY_REQUEST_NOT_FOUND.defaultStatus(), "no request with this idempotency key is"
            + " running or stored for you: it was never received, it failed before completing (send it again with"
            + " the same key), or its replay window passed", null), HttpResult.Disposition.STATUS);
  }

  private StoredResponse accepted(HttpRequestView request, IdempotencyKey key, Duration retryAfter) {
    String url = request.basePath() + statusPath + "?key=" + percentEncode(key.value());
    byte[] body = new ProblemJson().put("state", "in_flight").put("statusUrl", url).toBytes();
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/json"));
    headers.put("Location", List.of(url));
    headers.put("Retry-After", List.of(seconds(retryAfter)));
    headers.put("Cache-Control", List.of("no-store"));
    return StoredResponse.of(202, headers, body);
  }

  private Optional<Scope> scope(HttpRequestView request) {
    Optional<Scope> resolved = scopeResolver.resolve(request);
    return resolved.isPresent() ? resolved : anonymousScope;
  }

  private byte[] readBounded(HttpRequestView request) throws IOException {
    // not closed: the stream belongs to the framework
    InputStream in = request.body();
    byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8L, maxRequestBodyBytes + 1));
    return bytes.length > maxRequestBodyBytes ? null : bytes;
  }

  private StoredResponse invalidKey(String rule, String detail) {
    return problem(ProblemCode.IDEMPOTENCY_KEY_INVALID, ProblemCode.IDEMPOTENCY_KEY_INVALID.defaultStatus(), detail,
        rule);
  }

  private StoredResponse unresolvedScope() {
    return problem(ProblemCode.IDEMPOTENCY_SCOPE_UNRESOLVED, ProblemCode.IDEMPOTENCY_SCOPE_UNRESOLVED.defaultStatus(),
        "idempotency keys are scoped per caller, and this request has no authenticated caller; authenticate, or"
            + " configure an anonymous scope for this endpoint", null);
  }

  private StoredResponse tooLarge(String size) {
    return problem(ProblemCode.REQUEST_TOO_LARGE, ProblemCode.REQUEST_TOO_LARGE.defaultStatus(),
        "the request body (" + size + ") exceeds the limit of " + maxRequestBodyBytes + " bytes", null);
  }

  private StoredResponse storeUnavailable() {
    return storeUnavailable;
  }

  /**
   * The response an adapter captures, stores and sends for the application's own error, such as a servlet's
   * {@code sendError(status, message)}: status {@code status}, {@code Content-Type: application/problem+json}, and
   * the RFC 9457 body {@code {"type":"about:blank","title":<reason phrase>,"status":<status>,"detail":<message>}}
   * ({@code detail} only when {@code message} is neither null nor empty), escaped as every problem body of the
   * contract. Building the body here, not in the container's error page, makes the stored bytes the sent bytes.
   *
   * @param status the status, 100 to 999
   * @param message the application's message, or null
   * @return the response
   * @throws IllegalArgumentException if {@code status} is out of range
   */
  public static StoredResponse applicationError(int status, String message) {
    ProblemJson json = new ProblemJson().put("type", "about:blank").put("title", reasonPhrase(status))
        .put("status", status);
    if (message != null && !message.isEmpty()) {
      json.put("detail", message);
    }
    return StoredResponse.of(status, Map.of("Content-Type", List.of(PROBLEM_JSON)), json.toBytes());
  }

  private static String reasonPhrase(int sc) {
    switch (sc) {
      case 400: return "Bad Request";
      case 401: return "Unauthorized";
      case 402: return "Payment Required";
      case 403: return "Forbidden";
      case 404: return "Not Found";
      case 405: return "Method Not Allowed";
      case 409: return "Conflict";
      case 410: return "Gone";
      case 412: return "Precondition Failed";
      case 413: return "Content Too Large";
      case 415: return "Unsupported Media Type";
      case 422: return "Unprocessable Content";
      case 429: return "Too Many Requests";
      case 500: return "Internal Server Error";
      case 501: return "Not Implemented";
      case 502: return "Bad Gateway";
      case 503: return "Service Unavailable";
      case 504: return "Gateway Timeout";
      default: return sc >= 500 ? "Server Error" : sc >= 400 ? "Client Error" : "Status " + sc;
    }
  }

  /** An RFC 9457 problem response with the contract's members. */
  private StoredResponse problem(ProblemCode code, int status, String detail, String rule) {
    ProblemJson json = new ProblemJson()
        .put("type", problemTypeBase + code.code())
        .put("title", code.title())
        .put("status", status)
        .put("detail", detail)
        .put("code", code.code())
        .put("retryable", code.retryable());
    if (rule != null) {
      json.put("rule", rule);
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of(PROBLEM_JSON));
    headers.put("Cache-Control", List.of("no-store"));
    return StoredResponse.of(status, headers, json.toBytes());
  }

  private static StoredResponse withRetryAfter(StoredResponse r, Duration retryAfter) {
    Map<String, List<String>> headers = new LinkedHashMap<>(r.headers());
    headers.put("Retry-After", List.of(seconds(retryAfter)));
    return StoredResponse.of(r.status(), headers, r.body());
  }

  private static HttpResult reject(StoredResponse response) {
    return new HttpResult.Respond(response, HttpResult.Disposition.REJECTED);
  }

  /** Whole seconds, rounded up, at least 1: {@code Retry-After} has no fractions, and 0 invites a hot loop. */
  static String seconds(Duration d) {
    long millis = Math.max(0, d.toMillis());
    return Long.toString(Math.max(1, (millis + 999) / 1000));
  }

  private static String percentEncode(String key) {
    StringBuilder sb = new StringBuilder();
    for (byte b : key.getBytes(StandardCharsets.US_ASCII)) {
      char c = (char) b;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
        sb.append(c);
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return sb.toString();
  }

  private static String percentDecode(String s) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      if (c == '%') {
        if (k + 2 >= s.length()) {
          throw new IllegalArgumentException("truncated escape");
        }
        sb.append((char) Integer.parseInt(s.substring(k + 1, k + 3), 16));
        k += 2;
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  static boolean isTokenChar(int c) {
    return c > 0x20 && c < 0x7F && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
  }

  /** The engine the handler runs requests through. */
  public IdempotencyEngine engine() {
    return engine;
  }

  /** The key header's name. */
  public String headerName() {
    return headerName;
  }

  /** The endpoint rules, first match wins. */
  public List<EndpointRule> endpoints() {
    return endpoints;
  }

  /** The mismatch status. */
  public MismatchStatus mismatchStatus() {
    return mismatchStatus;
  }

  /** What a request gets while its key is in flight under another request. */
  public InFlightResponse inFlightResponse() {
    return inFlightResponse;
  }

  /** The status endpoint's path prefix (used with {@link InFlightResponse#ACCEPTED}). */
  public String statusPath() {
    return statusPath;
  }

  /** The response headers stored for replay (Set-Cookie only if {@link #storesSetCookie()}). */
  public List<String> storedHeaders() {
    return storedHeaderNames;
  }

  /** Whether Set-Cookie headers are stored and replayed. */
  public boolean storesSetCookie() {
    return storeSetCookie;
  }

  /** The request body limit. */
  public long maxRequestBodyBytes() {
    return maxRequestBodyBytes;
  }

  /** The storable response body limit. */
  public int maxStoredResponseBytes() {
    return maxStoredResponseBytes;
  }

  /** What happens to a response over the storable limit. */
  public OversizedResponse oversizedResponse() {
    return oversizedResponse;
  }

  /** The anonymous scope, when configured. */
  public Optional<Scope> anonymousScope() {
    return anonymousScope;
  }

  @Override
  public String toString() {
    return "IdempotencyHttp[header=" + headerName + ", endpoints=" + endpoints + ", mismatch=" + mismatchStatus
        + ", inFlight=" + inFlightResponse + ", maxRequestBodyBytes=" + maxRequestBodyBytes
        + ", maxStoredResponseBytes=" + maxStoredResponseBytes + ", oversized=" + oversizedResponse + "]";
  }

  /**
   * Builds an {@link IdempotencyHttp}. Every setter validates its argument at once and names the setting in its
   * message. Not thread-safe; the handler it builds is.
   */
  public static final class Builder {
    private final IdempotencyEngine engine;
    private String headerName = "Idempotency-Key";
    private final List<EndpointRule> endpoints = new ArrayList<>();
    private ScopeResolver scopeResolver = ScopeResolver.principal();
    private Scope anonymousScope;
    private FingerprintStrategy fingerprint = FingerprintStrategy.methodPathBody();
    private MismatchStatus mismatchStatus = MismatchStatus.CONFLICT;
    private InFlightResponse inFlightResponse = InFlightResponse.CONFLICT;
    private String statusPath = "/idempotency-requests";
    private List<String> storedHeaders = DEFAULT_STORED_HEADERS;
    private boolean storeSetCookie;
    private BodyRedactor bodyRedactor = BodyRedactor.NONE;
    private long maxRequestBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private int maxStoredResponseBytes = DEFAULT_MAX_BODY_BYTES;
    private OversizedResponse oversizedResponse = OversizedResponse.STORE_MARKER;
    private Duration storeUnavailableRetryAfter = Duration.ofSeconds(5);
    private String problemTypeBase = "https://idempotency.dev/problems/";

    private Builder(IdempotencyEngine engine) {
      this.engine = engine;
    }

    /** Sets the key header's name (default {@code Idempotency-Key}); must be an HTTP token. */
    public Builder headerName(String headerName) {
      Objects.requireNonNull(headerName, "headerName");
      if (headerName.isEmpty() || !headerName.chars().allMatch(IdempotencyHttp::isTokenChar)) {
        throw new IllegalArgumentException("headerName must be an HTTP token, but was \"" + headerName + "\"");
      }
      this.headerName = headerName;
      return this;
    }

    /**
     * Adds an endpoint rule; rules are tried in the order added, the first match wins, and a request no rule
     * matches passes through. Adding any rule replaces the default (POST and PATCH on every path, required).
     */
    public Builder endpoint(EndpointRule rule) {
      endpoints.add(Objects.requireNonNull(rule, "endpoint"));
      return this;
    }

    /** Sets where the scope comes from (default {@link ScopeResolver#principal()}). */
    public Builder scopeResolver(ScopeResolver scopeResolver) {
      this.scopeResolver = Objects.requireNonNull(scopeResolver, "scopeResolver");
      return this;
    }

    /**
     * Sets the scope of requests without a caller (default none: they get {@code 401
     * idempotency_scope_unresolved}). Every anonymous client shares it, so one may receive another's stored
     * response by sending its key: use it only where keys are unguessable and responses are not private.
     */
    public Builder anonymousScope(Scope anonymousScope) {
      this.anonymousScope = Objects.requireNonNull(anonymousScope, "anonymousScope");
      return this;
    }

    /** Sets the fingerprint strategy (default {@link FingerprintStrategy#methodPathBody()}). */
    public Builder fingerprint(FingerprintStrategy fingerprint) {
      this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
      return this;
    }

    /** Sets the status of {@code idempotency_key_reused} (default 409). */
    public Builder mismatchStatus(MismatchStatus mismatchStatus) {
      this.mismatchStatus = Objects.requireNonNull(mismatchStatus, "mismatchStatus");
      return this;
    }

    /** Answers an in-flight key with {@code 409} and {@code Retry-After} (the default). */
    public Builder inFlightConflict() {
      this.inFlightResponse = InFlightResponse.CONFLICT;
      return this;
    }

    /**
     * Answers an in-flight key with {@code 202}, {@code Location} and {@code Retry-After} pointing at
     * {@code statusPath + "?key=" + key} (percent-encoded; a query, because servers refuse an encoded {@code /} in a
     * path), and serves that status endpoint (GET; same scope as the request).
     *
     * @param statusPath the endpoint's path prefix, for example {@code /idempotency-requests}
     * @throws IllegalArgumentException if it does not start with {@code /}, ends with {@code /}, or has a query
     */
    public Builder inFlightAccepted(String statusPath) {
      Objects.requireNonNull(statusPath, "statusPath");
      if (!statusPath.startsWith("/") || statusPath.endsWith("/") || statusPath.contains("?")
          || statusPath.contains("#")) {
        throw new IllegalArgumentException("statusPath must start with '/', not end with '/', and have no query,"
            + " but was \"" + statusPath + "\"");
      }
      this.inFlightResponse = InFlightResponse.ACCEPTED;
      this.statusPath = statusPath;
      return this;
    }

    /**
     * Replaces the allowlist of response headers stored for replay (default {@link #DEFAULT_STORED_HEADERS}).
     * Set-Cookie is refused here: opt in with {@link #storeSetCookie(boolean)}, knowing that a replay hands the
     * first caller's session to whoever retries.
     */
    public Builder storedHeaders(String... names) {
      Objects.requireNonNull(names, "storedHeaders");
      for (String n : names) {
        Objects.requireNonNull(n, "storedHeaders name");
        if (n.isEmpty() || !n.chars().allMatch(IdempotencyHttp::isTokenChar)) {
          throw new IllegalArgumentException("storedHeaders name must be an HTTP token, but was \"" + n + "\"");
        }
        if (n.equalsIgnoreCase("Set-Cookie")) {
          throw new IllegalArgumentException("storedHeaders must not list Set-Cookie: opt in with"
              + " storeSetCookie(true) if replaying cookies is really intended");
        }
        if (n.equalsIgnoreCase(REPLAYED_HEADER)) {
          throw new IllegalArgumentException("storedHeaders must not list " + REPLAYED_HEADER
              + ": the handler adds it to replays");
        }
      }
      this.storedHeaders = List.of(names);
      return this;
    }

    /** Whether Set-Cookie headers are stored and replayed (default false). */
    public Builder storeSetCookie(boolean storeSetCookie) {
      this.storeSetCookie = storeSetCookie;
      return this;
    }

    /** Sets the hook that rewrites stored bodies (default none). */
    public Builder bodyRedactor(BodyRedactor bodyRedactor) {
      this.bodyRedactor = Objects.requireNonNull(bodyRedactor, "bodyRedactor");
      return this;
    }

    /** Sets the request body limit in bytes (default 1 MiB); must be 0 to {@code Integer.MAX_VALUE - 9}. */
    public Builder maxRequestBodyBytes(long maxRequestBodyBytes) {
      if (maxRequestBodyBytes < 0 || maxRequestBodyBytes > Integer.MAX_VALUE - 9L) {
        throw new IllegalArgumentException("maxRequestBodyBytes must be 0 to " + (Integer.MAX_VALUE - 9L)
            + ", but was " + maxRequestBodyBytes);
      }
      this.maxRequestBodyBytes = maxRequestBodyBytes;
      return this;
    }

    /** Sets the storable response body limit in bytes (default 1 MiB); must be at least 1024. */
    public Builder maxStoredResponseBytes(int maxStoredResponseBytes) {
      if (maxStoredResponseBytes < 1024) {
        throw new IllegalArgumentException("maxStoredResponseBytes must be >= 1024 (the not-stored marker has to"
            + " fit), but was " + maxStoredResponseBytes);
      }
      this.maxStoredResponseBytes = maxStoredResponseBytes;
      return this;
    }

    /** Sets what happens to a response over the storable limit (default {@link OversizedResponse#STORE_MARKER}). */
    public Builder oversizedResponse(OversizedResponse oversizedResponse) {
      this.oversizedResponse = Objects.requireNonNull(oversizedResponse, "oversizedResponse");
      return this;
    }

    /** Sets the {@code Retry-After} of a 503 when the store is unreachable (default 5 s); at least 1 s. */
    public Builder storeUnavailableRetryAfter(Duration retryAfter) {
      Objects.requireNonNull(retryAfter, "storeUnavailableRetryAfter");
      if (retryAfter.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("storeUnavailableRetryAfter must be >= PT1S, but was " + retryAfter);
      }
      this.storeUnavailableRetryAfter = retryAfter;
      return this;
    }

    /**
     * Sets the prefix of every problem's {@code type} URI, followed by the code (default
     * {@code https://idempotency.dev/problems/}); point it at your own API documentation.
     */
    public Builder problemTypeBase(String problemTypeBase) {
      Objects.requireNonNull(problemTypeBase, "problemTypeBase");
      try {
        if (!new URI(problemTypeBase + "x").isAbsolute()) {
          throw new IllegalArgumentException("problemTypeBase must be an absolute URI, but was \""
              + problemTypeBase + "\"");
        }
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("problemTypeBase must be a URI, but was \"" + problemTypeBase + "\"", e);
      }
      this.problemTypeBase = problemTypeBase;
      return this;
    }

    /** Builds the handler. */
    public IdempotencyHttp build() {
      return new IdempotencyHttp(this);
    }
  }
}
