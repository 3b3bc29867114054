package dev.idempotency.http.internal;

import dev.idempotency.InvalidIdempotencyKeyException;
import dev.idempotency.KeyState;
import dev.idempotency.StoredResponse;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.ProblemCode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The responses the handler answers with instead of the application: one RFC 9457 problem per
 * refusal, in the members and order of the contract table ({@code docs/http.md}), with {@code
 * Retry-After} where the client should wait. Every detail says what happened and what the client
 * should do. Immutable and thread-safe.
 */
public final class Problems {
  private final String typeBase;

  /** The 503 answer, the same for every request: built once. */
  private final StoredResponse storeUnavailable;

  /**
   * @param typeBase the prefix of every problem's {@code type} URI, followed by the code
   * @param storeUnavailableRetryAfter the {@code Retry-After} of the 503 of an unreachable store
   */
  public Problems(String typeBase, Duration storeUnavailableRetryAfter) {
    this.typeBase = typeBase;
    this.storeUnavailable =
        withRetryAfter(
            problem(
                ProblemCode.IDEMPOTENCY_STORE_UNAVAILABLE,
                ProblemCode.IDEMPOTENCY_STORE_UNAVAILABLE.defaultStatus(),
                "the idempotency key store cannot be reached, so"
                    + " the request was not processed; retry with the same key after the Retry-After delay",
                null),
            storeUnavailableRetryAfter);
  }

  /** {@code 400 idempotency_key_missing}, with {@code detail} saying where the key was expected. */
  public StoredResponse keyMissing(String detail) {
    return problem(
        ProblemCode.IDEMPOTENCY_KEY_MISSING,
        ProblemCode.IDEMPOTENCY_KEY_MISSING.defaultStatus(),
        detail,
        null);
  }

  /**
   * {@code 400 idempotency_key_invalid} with the member {@code rule}, for example {@code
   * multiple_values}.
   */
  public StoredResponse invalidKey(String rule, String detail) {
    return problem(
        ProblemCode.IDEMPOTENCY_KEY_INVALID,
        ProblemCode.IDEMPOTENCY_KEY_INVALID.defaultStatus(),
        detail,
        rule);
  }

  /**
   * {@code 400 idempotency_key_invalid} for a key the key contract refuses; {@code rule} names the
   * broken rule.
   */
  public StoredResponse invalidKey(InvalidIdempotencyKeyException e) {
    return invalidKey(
        e.rule().name().toLowerCase(Locale.ROOT),
        Objects.requireNonNull(
            e.getMessage(), "an InvalidIdempotencyKeyException always says what is wrong"));
  }

  /**
   * {@code 401 idempotency_scope_unresolved}. The detail puts the likely fix first: a request that
   * sent credentials and still has no caller met a filter mapped before authentication; one without
   * credentials must authenticate. An anonymous scope comes last, since every caller without an
   * identity then shares its keys.
   *
   * @param credentialsSent whether the request carried an {@code Authorization} header
   */
  public StoredResponse unresolvedScope(boolean credentialsSent) {
    return problem(
        ProblemCode.IDEMPOTENCY_SCOPE_UNRESOLVED,
        ProblemCode.IDEMPOTENCY_SCOPE_UNRESOLVED.defaultStatus(),
        credentialsSent
            ? "idempotency keys are scoped per caller, and this request sent credentials but reached the"
                + " idempotency filter with no authenticated caller: the filter runs before"
                + " authentication; map it after the authentication filter"
            : "idempotency keys are scoped per caller, and this request has no authenticated caller:"
                + " authenticate; an endpoint meant for callers without an identity can be given an"
                + " anonymous scope, whose keys all such callers then share",
        null);
  }

  /**
   * {@code 413 request_too_large}; {@code size} says how large the body is, as far as it was read.
   */
  public StoredResponse tooLarge(String size, long limit) {
    return problem(
        ProblemCode.REQUEST_TOO_LARGE,
        ProblemCode.REQUEST_TOO_LARGE.defaultStatus(),
        "the request body (" + size + ") exceeds the limit of " + limit + " bytes",
        null);
  }

  /**
   * {@code 503 idempotency_store_unavailable} with {@code Retry-After}: the same instance for every
   * request.
   */
  public StoredResponse storeUnavailable() {
    return storeUnavailable;
  }

  /** {@code 409 idempotency_request_in_flight} with {@code Retry-After}. */
  public StoredResponse inFlight(Duration retryAfter) {
    return withRetryAfter(
        problem(
            ProblemCode.IDEMPOTENCY_REQUEST_IN_FLIGHT,
            ProblemCode.IDEMPOTENCY_REQUEST_IN_FLIGHT.defaultStatus(),
            "a request with this idempotency key is still being processed; retry after the Retry-After delay to"
                + " receive its result",
            null),
        retryAfter);
  }

  /**
   * {@code idempotency_key_reused} with the configured {@code status}; {@code existing} is the
   * earlier request's.
   */
  public StoredResponse keyReused(int status, KeyState existing) {
    return problem(
        ProblemCode.IDEMPOTENCY_KEY_REUSED,
        status,
        "this idempotency key was already used for a different request (another method, path or body; the"
            + " earlier request is "
            + (existing == KeyState.COMPLETE ? "complete" : "in flight")
            + "); mint a new key for a new operation",
        null);
  }

  /**
   * {@code 500 idempotency_response_not_stored} for a replayed engine marker ({@link
   * StoredResponse#notStoredMarker}): the engine stored it when the store could not keep the
   * response (too large for it, or refused by it).
   *
   * @param markerReason what the marker says: the original status and the reason
   */
  public StoredResponse notStored(String markerReason) {
    int cut = markerReason.indexOf("; ");
    String status = cut < 0 ? "unknown" : markerReason.substring(0, cut);
    String reason = cut < 0 ? markerReason : markerReason.substring(cut + 2);
    return problem(
        ProblemCode.IDEMPOTENCY_RESPONSE_NOT_STORED,
        ProblemCode.IDEMPOTENCY_RESPONSE_NOT_STORED.defaultStatus(),
        "the request with this idempotency key was processed (status "
            + status
            + "), but its response could not be stored ("
            + reason
            + ") and cannot be replayed; retrying will not process it again",
        null);
  }

  /**
   * {@code 404 idempotency_request_not_found}, the status endpoint's answer for a key it does not
   * know.
   */
  public StoredResponse notFound() {
    return problem(
        ProblemCode.IDEMPOTENCY_REQUEST_NOT_FOUND,
        ProblemCode.IDEMPOTENCY_REQUEST_NOT_FOUND.defaultStatus(),
        "no request with this idempotency key is running or stored for you: it was never received, it failed before"
            + " completing (send it again with the same key), or its replay window passed",
        null);
  }

  /** An RFC 9457 problem response with the contract's members. */
  private StoredResponse problem(
      ProblemCode code, int status, String detail, @Nullable String rule) {
    ProblemJson json =
        new ProblemJson()
            .put("type", typeBase + code.code())
            .put("title", code.title())
            .put("status", status)
            .put("detail", detail)
            .put("code", code.code())
            .put("retryable", code.retryable());
    if (rule != null) {
      json.put("rule", rule);
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of(IdempotencyHttp.PROBLEM_JSON));
    headers.put("Cache-Control", List.of("no-store"));
    return StoredResponse.of(status, headers, json.toBytes());
  }

  private static StoredResponse withRetryAfter(StoredResponse r, Duration retryAfter) {
    Map<String, List<String>> headers = new LinkedHashMap<>(r.headers());
    headers.put("Retry-After", List.of(seconds(retryAfter)));
    return StoredResponse.of(r.status(), headers, r.body());
  }

  /**
   * Whole seconds, rounded up, at least 1: {@code Retry-After} has no fractions, and 0 invites a
   * hot loop.
   */
  public static String seconds(Duration d) {
    long millis = Math.max(0, d.toMillis());
    return Long.toString(Math.max(1, (millis + 999) / 1000));
  }

  /**
   * The problem response for the application's own error ({@link
   * IdempotencyHttp#applicationError}): status {@code status}, the reason phrase as title, {@code
   * detail} only when {@code message} is neither null nor empty.
   */
  public static StoredResponse applicationError(int status, @Nullable String message) {
    ProblemJson json =
        new ProblemJson()
            .put("type", "about:blank")
            .put("title", reasonPhrase(status))
            .put("status", status);
    if (message != null && !message.isEmpty()) {
      json.put("detail", message);
    }
    return StoredResponse.of(
        status, Map.of("Content-Type", List.of(IdempotencyHttp.PROBLEM_JSON)), json.toBytes());
  }

  private static String reasonPhrase(int sc) {
    return switch (sc) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 402 -> "Payment Required";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 409 -> "Conflict";
      case 410 -> "Gone";
      case 412 -> "Precondition Failed";
      case 413 -> "Content Too Large";
      case 415 -> "Unsupported Media Type";
      case 422 -> "Unprocessable Content";
      case 429 -> "Too Many Requests";
      case 500 -> "Internal Server Error";
      case 501 -> "Not Implemented";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      default -> sc >= 500 ? "Server Error" : sc >= 400 ? "Client Error" : "Status " + sc;
    };
  }
}
