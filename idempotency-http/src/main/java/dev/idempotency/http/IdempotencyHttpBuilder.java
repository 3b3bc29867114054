package dev.idempotency.http;

import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds an {@link IdempotencyHttp}: {@link IdempotencyHttp#builder(IdempotencyEngine)} starts one
 * with every setting at its default. Every setter validates its argument at once and names the
 * setting in its message. Not thread-safe; the handler it builds is.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>{@code headerName}</td><td>{@code Idempotency-Key}</td></tr>
 *   <tr><td>{@code endpoint}</td><td>POST and PATCH on every path, key required; a rule that chose
 *       no lifecycle runs in one transaction where the store can ({@link EndpointRule})</td></tr>
 *   <tr><td>{@code scopeResolver}</td><td>{@link ScopeResolver#principal()}</td></tr>
 *   <tr><td>{@code anonymousScope}</td><td>none: an unauthenticated guarded request gets 401</td></tr>
 *   <tr><td>{@code fingerprint}</td><td>{@link FingerprintStrategy#methodPathBody()}</td></tr>
 *   <tr><td>{@code mismatchStatus}</td><td>{@link MismatchStatus#CONFLICT} (409)</td></tr>
 *   <tr><td>{@code inFlightConflict} / {@code inFlightAccepted}</td>
 *       <td>{@link InFlightResponse#CONFLICT} (409 + Retry-After)</td></tr>
 *   <tr><td>{@code statusPath}</td><td>{@code /idempotency-requests} (with {@link InFlightResponse#ACCEPTED})</td></tr>
 *   <tr><td>{@code storedHeaders}</td><td>{@link IdempotencyHttp#DEFAULT_STORED_HEADERS}; never Set-Cookie unless
 *       opted in</td></tr>
 *   <tr><td>{@code bodyRedactor}</td><td>{@link BodyRedactor#NONE}</td></tr>
 *   <tr><td>{@code maxRequestBodyBytes}</td><td>1 MiB</td></tr>
 *   <tr><td>{@code maxStoredResponseBytes}</td><td>1 MiB, or the store's {@code
 *       maxResponseBytes()} when that is smaller</td></tr>
 *   <tr><td>{@code oversizedResponse}</td><td>{@link OversizedResponse#STORE_MARKER}</td></tr>
 *   <tr><td>{@code storeUnavailableRetryAfter}</td><td>5 s</td></tr>
 *   <tr><td>{@code problemTypeBase}</td><td>{@code https://idempotency.dev/problems/}</td></tr>
 * </table>
 *
 * <p>A class of its own rather than nested in {@link IdempotencyHttp}, so that the handler's source
 * is its request pipeline; code that chains {@code IdempotencyHttp.builder(engine)...build()} never
 * names it.
 */
public final class IdempotencyHttpBuilder {
  // read by the IdempotencyHttp constructor, which copies them: the handler shares nothing with its
  // builder
  final IdempotencyEngine engine;
  String headerName = "Idempotency-Key";
  final List<EndpointRule> endpoints = new ArrayList<>();
  ScopeResolver scopeResolver = ScopeResolver.principal();
  @Nullable Scope anonymousScope;
  FingerprintStrategy fingerprint = FingerprintStrategy.methodPathBody();
  MismatchStatus mismatchStatus = MismatchStatus.CONFLICT;
  InFlightResponse inFlightResponse = InFlightResponse.CONFLICT;
  String statusPath = "/idempotency-requests";
  List<String> storedHeaders = IdempotencyHttp.DEFAULT_STORED_HEADERS;
  boolean storeSetCookie;
  BodyRedactor bodyRedactor = BodyRedactor.NONE;
  long maxRequestBodyBytes = IdempotencyHttp.DEFAULT_MAX_BODY_BYTES;
  int maxStoredResponseBytes = IdempotencyHttp.DEFAULT_MAX_BODY_BYTES;
  private boolean maxStoredResponseBytesSet;
  OversizedResponse oversizedResponse = OversizedResponse.STORE_MARKER;
  Duration storeUnavailableRetryAfter = Duration.ofSeconds(5);
  String problemTypeBase = "https://idempotency.dev/problems/";

  IdempotencyHttpBuilder(IdempotencyEngine engine) {
    this.engine = engine;
  }

  /** Sets the key header's name (default {@code Idempotency-Key}); must be an HTTP token. */
  public IdempotencyHttpBuilder headerName(String headerName) {
    Objects.requireNonNull(headerName, "headerName");
    if (!isToken(headerName)) {
      throw new IllegalArgumentException(
          "headerName must be an HTTP token, but was \"" + headerName + "\"");
    }
    this.headerName = headerName;
    return this;
  }

  /**
   * Adds an endpoint rule; rules are tried in the order added, the first match wins, and a request
   * no rule matches passes through. Adding any rule replaces the default (POST and PATCH on every
   * path, required). A rule that chose neither {@link EndpointRule#inOneTransaction()} nor {@link
   * EndpointRule#stepped()} runs in one transaction when the store declares {@link
   * StoreCapability#ONE_TRANSACTION}, else stepped.
   *
   * @throws IllegalArgumentException if the rule runs {@link EndpointRule#inOneTransaction() in one
   *     transaction} and the engine's store does not declare {@link
   *     StoreCapability#ONE_TRANSACTION}
   */
  public IdempotencyHttpBuilder endpoint(EndpointRule rule) {
    Objects.requireNonNull(rule, "endpoint");
    KeyStore store = engine.store();
    if (rule.runsInOneTransaction() && !runsOneTransaction(store)) {
      throw new IllegalArgumentException(
          "endpoint "
              + rule
              + ": EndpointRule.inOneTransaction() needs a store that declares"
              + " StoreCapability.ONE_TRANSACTION (JdbcKeyStore does), but the engine's store "
              + store
              + " does not; drop inOneTransaction() to run the endpoint's requests with a claim and"
              + " a completion of their own");
    }
    endpoints.add(rule);
    return this;
  }

  /** Whether {@code store} can run a request in one transaction. */
  static boolean runsOneTransaction(KeyStore store) {
    return store instanceof TransactionalKeyStore<?>
        && store.capabilities().contains(StoreCapability.ONE_TRANSACTION);
  }

  /** Sets where the scope comes from (default {@link ScopeResolver#principal()}). */
  public IdempotencyHttpBuilder scopeResolver(ScopeResolver scopeResolver) {
    this.scopeResolver = Objects.requireNonNull(scopeResolver, "scopeResolver");
    return this;
  }

  /**
   * Sets the scope of requests without a caller (default none: they get {@code 401
   * idempotency_scope_unresolved}). Every anonymous client shares it, so one may receive another's
   * stored response by sending its key: use it only where keys are unguessable and responses are
   * not private.
   */
  public IdempotencyHttpBuilder anonymousScope(Scope anonymousScope) {
    this.anonymousScope = Objects.requireNonNull(anonymousScope, "anonymousScope");
    return this;
  }

  /** Sets the fingerprint strategy (default {@link FingerprintStrategy#methodPathBody()}). */
  public IdempotencyHttpBuilder fingerprint(FingerprintStrategy fingerprint) {
    this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
    return this;
  }

  /** Sets the status of {@code idempotency_key_reused} (default 409). */
  public IdempotencyHttpBuilder mismatchStatus(MismatchStatus mismatchStatus) {
    this.mismatchStatus = Objects.requireNonNull(mismatchStatus, "mismatchStatus");
    return this;
  }

  /** Answers an in-flight key with {@code 409} and {@code Retry-After} (the default). */
  public IdempotencyHttpBuilder inFlightConflict() {
    this.inFlightResponse = InFlightResponse.CONFLICT;
    return this;
  }

  /**
   * Answers an in-flight key with {@code 202}, {@code Location} and {@code Retry-After} pointing at
   * {@code statusPath + "?key=" + key} (percent-encoded; a query, because servers refuse an encoded
   * {@code /} in a path), and serves that status endpoint (GET; same scope as the request).
   *
   * @param statusPath the endpoint's path prefix, for example {@code /idempotency-requests}
   * @throws IllegalArgumentException if it does not start with {@code /}, ends with {@code /}, or
   *     has a query
   */
  public IdempotencyHttpBuilder inFlightAccepted(String statusPath) {
    Objects.requireNonNull(statusPath, "statusPath");
    if (!statusPath.startsWith("/")
        || statusPath.endsWith("/")
        || statusPath.contains("?")
        || statusPath.contains("#")) {
      throw new IllegalArgumentException(
          "statusPath must start with '/', not end with '/', and have no query,"
              + " but was \""
              + statusPath
              + "\"");
    }
    this.inFlightResponse = InFlightResponse.ACCEPTED;
    this.statusPath = statusPath;
    return this;
  }

  /**
   * Replaces the allowlist of response headers stored for replay (default {@link
   * IdempotencyHttp#DEFAULT_STORED_HEADERS}). Set-Cookie is refused here: opt in with {@link
   * #storeSetCookie(boolean)}, knowing that a replay hands the first caller's session to whoever
   * retries.
   */
  public IdempotencyHttpBuilder storedHeaders(String... names) {
    Objects.requireNonNull(names, "storedHeaders");
    for (String n : names) {
      Objects.requireNonNull(n, "storedHeaders name");
      if (!isToken(n)) {
        throw new IllegalArgumentException(
            "storedHeaders name must be an HTTP token, but was \"" + n + "\"");
      }
      if (n.equalsIgnoreCase("Set-Cookie")) {
        throw new IllegalArgumentException(
            "storedHeaders must not list Set-Cookie: opt in with"
                + " storeSetCookie(true) if replaying cookies is really intended");
      }
      if (n.equalsIgnoreCase(IdempotencyHttp.REPLAYED_HEADER)) {
        throw new IllegalArgumentException(
            "storedHeaders must not list "
                + IdempotencyHttp.REPLAYED_HEADER
                + ": the handler adds it to replays");
      }
    }
    this.storedHeaders = List.of(names);
    return this;
  }

  /** Whether Set-Cookie headers are stored and replayed (default false). */
  public IdempotencyHttpBuilder storeSetCookie(boolean storeSetCookie) {
    this.storeSetCookie = storeSetCookie;
    return this;
  }

  /** Sets the hook that rewrites stored bodies (default none). */
  public IdempotencyHttpBuilder bodyRedactor(BodyRedactor bodyRedactor) {
    this.bodyRedactor = Objects.requireNonNull(bodyRedactor, "bodyRedactor");
    return this;
  }

  /**
   * Sets the request body limit in bytes (default 1 MiB); must be 0 to {@code Integer.MAX_VALUE -
   * 9}.
   */
  public IdempotencyHttpBuilder maxRequestBodyBytes(long maxRequestBodyBytes) {
    if (maxRequestBodyBytes < 0 || maxRequestBodyBytes > Integer.MAX_VALUE - 9L) {
      throw new IllegalArgumentException(
          "maxRequestBodyBytes must be 0 to "
              + (Integer.MAX_VALUE - 9L)
              + ", but was "
              + maxRequestBodyBytes);
    }
    this.maxRequestBodyBytes = maxRequestBodyBytes;
    return this;
  }

  /**
   * Sets the storable response body limit in bytes (default 1 MiB, or the store's {@link
   * KeyStore#maxResponseBytes()} when that is smaller); must be at least 1024, and no more than the
   * store keeps ({@link #build()} checks).
   */
  public IdempotencyHttpBuilder maxStoredResponseBytes(int maxStoredResponseBytes) {
    if (maxStoredResponseBytes < 1024) {
      throw new IllegalArgumentException(
          "maxStoredResponseBytes must be >= 1024 (the not-stored marker has to"
              + " fit), but was "
              + maxStoredResponseBytes);
    }
    this.maxStoredResponseBytes = maxStoredResponseBytes;
    this.maxStoredResponseBytesSet = true;
    return this;
  }

  /**
   * Sets what happens to a response over the storable limit (default {@link
   * OversizedResponse#STORE_MARKER}).
   */
  public IdempotencyHttpBuilder oversizedResponse(OversizedResponse oversizedResponse) {
    this.oversizedResponse = Objects.requireNonNull(oversizedResponse, "oversizedResponse");
    return this;
  }

  /**
   * Sets the {@code Retry-After} of a 503 when the store is unreachable (default 5 s); at least 1
   * s.
   */
  public IdempotencyHttpBuilder storeUnavailableRetryAfter(Duration retryAfter) {
    Objects.requireNonNull(retryAfter, "storeUnavailableRetryAfter");
    if (retryAfter.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(
          "storeUnavailableRetryAfter must be >= PT1S, but was " + retryAfter);
    }
    this.storeUnavailableRetryAfter = retryAfter;
    return this;
  }

  /**
   * Sets the prefix of every problem's {@code type} URI, followed by the code (default {@code
   * https://idempotency.dev/problems/}); point it at your own API documentation.
   */
  public IdempotencyHttpBuilder problemTypeBase(String problemTypeBase) {
    Objects.requireNonNull(problemTypeBase, "problemTypeBase");
    try {
      if (!new URI(problemTypeBase + "x").isAbsolute()) {
        throw new IllegalArgumentException(
            "problemTypeBase must be an absolute URI, but was \"" + problemTypeBase + "\"");
      }
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "problemTypeBase must be a URI, but was \"" + problemTypeBase + "\"", e);
    }
    this.problemTypeBase = problemTypeBase;
    return this;
  }

  /**
   * Builds the handler.
   *
   * @throws IllegalArgumentException if {@code maxStoredResponseBytes} was set above what the
   *     engine's store keeps ({@link KeyStore#maxResponseBytes()}), or the store keeps less than
   *     the 1024 bytes the not-stored marker needs; the message names both settings
   */
  public IdempotencyHttp build() {
    KeyStore store = engine.store();
    long storeLimit = store.maxResponseBytes();
    if (storeLimit < 1024) {
      throw new IllegalArgumentException(
          "the store "
              + store
              + " keeps responses of at most "
              + storeLimit
              + " bytes (its maxResponseBytes()): less than the 1024 bytes the HTTP binding's"
              + " not-stored marker needs; configure the store to keep larger responses");
    }
    if (maxStoredResponseBytes > storeLimit) {
      if (maxStoredResponseBytesSet) {
        throw new IllegalArgumentException(
            "maxStoredResponseBytes is "
                + maxStoredResponseBytes
                + " bytes, but the store "
                + store
                + " keeps responses of at most "
                + storeLimit
                + " bytes (its maxResponseBytes()): set maxStoredResponseBytes to "
                + storeLimit
                + " or less, or raise what the store keeps");
      }
      maxStoredResponseBytes = (int) storeLimit; // the default follows a smaller store
    }
    return new IdempotencyHttp(this);
  }

  /** Whether {@code s} is an HTTP token (RFC 9110, 5.6.2), as header names and methods are. */
  static boolean isToken(String s) {
    return !s.isEmpty()
        && s.chars().allMatch(c -> c > 0x20 && c < 0x7F && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0);
  }
}
