package dev.idempotency.http.internal;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.InvalidIdempotencyKeyException;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.HttpRequestView;
import dev.idempotency.http.HttpResult;
import dev.idempotency.http.ScopeResolver;
import dev.idempotency.spi.RecordSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The status endpoint of {@code InFlightResponse.ACCEPTED}: the {@code 202} a request gets while
 * its key is in flight, pointing at {@code statusPath + "?key=" + key}, and the GET there, which
 * answers {@code 202} while the request runs, its stored response once it completed within the
 * replay window, else {@code 404}. The key travels percent-encoded in the query, because servers
 * refuse an encoded {@code /} in a path. A caller sees only the keys of its own scope. Immutable
 * and thread-safe.
 */
public final class StatusEndpoint {
  private static final System.Logger LOG = System.getLogger(StatusEndpoint.class.getName());

  private final IdempotencyEngine engine;
  private final String path;
  private final ScopeResolver callerScope;
  private final Problems problems;

  /**
   * @param engine the engine whose store holds the records
   * @param path the endpoint's path, for example {@code /idempotency-requests}
   * @param callerScope the scope of the caller, the anonymous scope included when one is configured
   * @param problems the refusals
   */
  public StatusEndpoint(
      IdempotencyEngine engine, String path, ScopeResolver callerScope, Problems problems) {
    this.engine = engine;
    this.path = path;
    this.callerScope = callerScope;
    this.problems = problems;
  }

  /** Whether {@code request} is a GET of this endpoint. */
  public boolean serves(HttpRequestView request) {
    return request.method().equals("GET") && request.path().equals(path);
  }

  /** Answers a GET of this endpoint. */
  public HttpResult answer(HttpRequestView request) {
    String encodedKey = null;
    for (String pair : request.query().orElse("").split("&", -1)) {
      if (pair.startsWith("key=")) {
        if (encodedKey != null) {
          return reject(
              problems.invalidKey(
                  "multiple_values", "the status URL must have exactly one key parameter"));
        }
        encodedKey = pair.substring(4);
      }
    }
    if (encodedKey == null) {
      return reject(
          problems.keyMissing(
              "the status endpoint needs the key as its query parameter: " + path + "?key=..."));
    }
    IdempotencyKey key;
    try {
      key = IdempotencyKey.of(percentDecode(encodedKey));
    } catch (InvalidIdempotencyKeyException e) {
      return reject(problems.invalidKey(e));
    } catch (IllegalArgumentException e) {
      return reject(
          problems.invalidKey(
              "malformed_percent_encoding", "the status URL's key is not percent-encoded"));
    }
    Optional<Scope> scope = callerScope.resolve(request);
    if (scope.isEmpty()) {
      return reject(problems.unresolvedScope(!request.headers("Authorization").isEmpty()));
    }
    Optional<RecordSnapshot> record;
    try {
      record = engine.store().lookup(new RecordId(scope.get(), key));
    } catch (StoreUnavailableException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "idempotency store unavailable for a status lookup; answered 503",
          e);
      return reject(problems.storeUnavailable());
    }
    Instant now = engine.config().clock().instant();
    if (record.isPresent() && record.get().state() == KeyState.IN_FLIGHT) {
      Duration left = Duration.between(now, record.get().leaseExpiresAt().orElse(now));
      return status(accepted(request, key, left));
    }
    if (record.isPresent()
        && now.isBefore(
            record.get().completedAt().orElseThrow().plus(engine.config().replayWindow()))) {
      return status(StoringRules.replayed(record.get().response().orElseThrow()));
    }
    return status(problems.notFound());
  }

  /**
   * The {@code 202} for {@code key}, in flight: {@code Location} and the body's {@code statusUrl}
   * point at this endpoint under the request's base path, {@code Retry-After} says when to look.
   */
  public StoredResponse accepted(HttpRequestView request, IdempotencyKey key, Duration retryAfter) {
    String url = request.basePath() + path + "?key=" + percentEncode(key.value());
    byte[] body = new ProblemJson().put("state", "in_flight").put("statusUrl", url).toBytes();
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/json"));
    headers.put("Location", List.of(url));
    headers.put("Retry-After", List.of(Problems.seconds(retryAfter)));
    headers.put("Cache-Control", List.of("no-store"));
    return StoredResponse.of(202, headers, body);
  }

  private static HttpResult reject(StoredResponse response) {
    return new HttpResult.Respond(response, HttpResult.Disposition.REJECTED);
  }

  private static HttpResult status(StoredResponse response) {
    return new HttpResult.Respond(response, HttpResult.Disposition.STATUS);
  }

  /** Every byte but the unreserved characters of RFC 3986 as {@code %XX}; keys are ASCII. */
  private static String percentEncode(String key) {
    StringBuilder sb = new StringBuilder();
    for (byte b : key.getBytes(StandardCharsets.US_ASCII)) {
      char c = (char) b;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~".indexOf(c) >= 0) {
        sb.append(c);
      } else {
        sb.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return sb.toString();
  }

  /**
   * Decodes {@code %XX} escapes, each to one character (a key is ASCII: a byte over 0x7F makes the
   * key invalid). Each escape takes exactly two ASCII hex digits ({@code Integer.parseInt} would
   * also take a sign, and {@code Character.digit} other scripts' digits).
   *
   * @throws IllegalArgumentException if an escape is truncated or not hexadecimal
   */
  private static String percentDecode(String s) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      if (c != '%') {
        sb.append(c);
        continue;
      }
      int high = k + 1 < s.length() ? hexDigit(s.charAt(k + 1)) : -1;
      int low = k + 2 < s.length() ? hexDigit(s.charAt(k + 2)) : -1;
      if (high < 0 || low < 0) {
        throw new IllegalArgumentException("'%' must be followed by two hex digits");
      }
      sb.append((char) (high << 4 | low));
      k += 2;
    }
    return sb.toString();
  }

  private static int hexDigit(char c) {
    return c >= '0' && c <= '9'
        ? c - '0'
        : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }
}
