package dev.idempotency.http;

import dev.idempotency.Fingerprint;
import dev.idempotency.http.internal.Fingerprints;
import java.util.List;
import java.util.Objects;

/**
 * Computes the fingerprint that tells "a retry of the same request" from "the same key reused for
 * another request". A strategy must be deterministic, thread-safe, and must not throw on any body:
 * a body it cannot interpret is fingerprinted by its bytes.
 */
@FunctionalInterface
public interface FingerprintStrategy {

  /**
   * Computes the fingerprint of a request.
   *
   * @param request the request (method, path, query, headers)
   * @param body the complete body bytes
   * @return the fingerprint
   */
  Fingerprint fingerprint(HttpRequestView request, byte[] body);

  /**
   * The default: SHA-256 over the method, the {@linkplain HttpRequestView#rawPath() raw path}, the
   * query and the body bytes, each framed by its length so that no two different requests share an
   * input ({@code "POST", "/a", "b"} never collides with {@code "POST", "/ab", ""}; an absent query
   * differs from an empty one). A different query string is a different request.
   */
  static FingerprintStrategy methodPathBody() {
    return Fingerprints::methodPathBody;
  }

  /**
   * Like {@link #methodPathBody()}, but a JSON body is canonicalised first (object members sorted
   * by name, no insignificant whitespace, numbers normalised by value, strings by their code
   * points), so that two encodings of the same JSON document are the same request. A body that is
   * not one well-formed JSON value (or has duplicate member names) is fingerprinted by its bytes.
   * This is not RFC 8785 (JCS): numbers are compared as decimals.
   */
  static FingerprintStrategy canonicalJson() {
    return Fingerprints::canonicalJson;
  }

  /**
   * Method, path and only the named top-level members of a JSON object body, canonicalised as in
   * {@link #canonicalJson()}: requests that differ only in other members (a client timestamp, a
   * trace id) are the same request. An absent member differs from a member set to {@code null}. A
   * body that is not a JSON object is fingerprinted by its bytes.
   *
   * @param members the member names that make up the request's identity, at least one
   * @throws IllegalArgumentException if {@code members} is empty or has an empty name
   */
  static FingerprintStrategy jsonMembers(String... members) {
    Objects.requireNonNull(members, "members");
    List<String> names = List.of(members);
    if (names.isEmpty() || names.stream().anyMatch(String::isEmpty)) {
      throw new IllegalArgumentException(
          "fingerprint jsonMembers must name at least one non-empty member, but was " + names);
    }
    return (request, body) -> Fingerprints.jsonMembers(request, body, names);
  }
}
