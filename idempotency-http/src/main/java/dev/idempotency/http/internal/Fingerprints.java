package dev.idempotency.http.internal;

import dev.idempotency.Fingerprint;
import dev.idempotency.http.HttpRequestView;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The built-in fingerprint strategies. The SHA-256 input is a domain prefix, then the method, the
 * raw path, the query and the body, each framed by its 8-byte big-endian length; an absent query is
 * the length -1 with no bytes, so an absent query differs from an empty one. Every input decodes
 * back into exactly one request: no two collide (the path {@code /a?b} is not the path {@code /a}
 * with the query {@code b}). The {@code /2} of the domain prefixes is the version of this layout:
 * another layout takes another version, so that its digests never equal the ones stored under this
 * one.
 */
public final class Fingerprints {
  private static final byte[] RAW =
      "idempotency-fingerprint/2 raw\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CANONICAL =
      "idempotency-fingerprint/2 json\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MEMBERS =
      "idempotency-fingerprint/2 members\n".getBytes(StandardCharsets.US_ASCII);
  private static final long ABSENT = -1;

  /** Never updated, only cloned; null when the provider's digest cannot be cloned. */
  private static final @Nullable MessageDigest PROTOTYPE = prototype();

  private Fingerprints() {}

  /** SHA-256 of method, raw path, query, body bytes. */
  public static Fingerprint methodPathBody(HttpRequestView request, byte[] body) {
    return digest(RAW, request, body);
  }

  /**
   * SHA-256 of method, raw path, query, canonical JSON (or the raw bytes when the body is not
   * JSON).
   */
  public static Fingerprint canonicalJson(HttpRequestView request, byte[] body) {
    Optional<Object> parsed = CanonicalJson.parse(body);
    if (parsed.isEmpty()) {
      return methodPathBody(request, body);
    }
    return digest(
        CANONICAL, request, CanonicalJson.text(parsed.get()).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * SHA-256 of method, raw path, query, and the named members of a JSON object body (canonical).
   */
  public static Fingerprint jsonMembers(
      HttpRequestView request, byte[] body, List<String> members) {
    Optional<Object> parsed = CanonicalJson.parse(body);
    if (parsed.isEmpty() || !(parsed.get() instanceof Map<?, ?> object)) {
      return methodPathBody(request, body);
    }
    StringBuilder selected = new StringBuilder();
    for (String name : members) {
      // "name" then either "=" and the canonical value, or "!" for an absent member: null and
      // absent differ
      selected.append(CanonicalJson.text(name));
      selected
          .append(object.containsKey(name) ? "=" + CanonicalJson.text(object.get(name)) : "!")
          .append('\n');
    }
    return digest(MEMBERS, request, selected.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static Fingerprint digest(byte[] domain, HttpRequestView request, byte[] body) {
    MessageDigest sha = sha256();
    byte[] length = new byte[Long.BYTES]; // reused for every frame of this fingerprint
    sha.update(domain);
    frame(sha, length, request.method().getBytes(StandardCharsets.UTF_8));
    frame(sha, length, request.rawPath().getBytes(StandardCharsets.UTF_8));
    Optional<String> query = request.query();
    if (query.isPresent()) {
      frame(sha, length, query.get().getBytes(StandardCharsets.UTF_8));
    } else {
      putLength(sha, length, ABSENT); // no query differs from an empty one ("/a" vs "/a?")
    }
    frame(sha, length, body);
    return Fingerprint.of(sha.digest());
  }

  private static void frame(MessageDigest sha, byte[] length, byte[] part) {
    putLength(sha, length, part.length);
    sha.update(part);
  }

  /** The 8-byte big-endian length, written into {@code buffer}. */
  private static void putLength(MessageDigest sha, byte[] buffer, long value) {
    for (int k = Long.BYTES - 1; k >= 0; k--) {
      buffer[k] = (byte) value;
      value >>>= 8;
    }
    sha.update(buffer);
  }

  /**
   * A fresh SHA-256 digest: a clone of an untouched prototype, cheaper than a provider lookup per
   * request.
   */
  private static MessageDigest sha256() {
    if (PROTOTYPE != null) {
      try {
        return (MessageDigest) PROTOTYPE.clone();
      } catch (CloneNotSupportedException e) {
        // this provider's digest cannot be cloned: look it up each time
      }
    }
    return newSha256();
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-256", e);
    }
  }

  /**
   * A digest to clone, itself a clone: proof that this provider's digests can be cloned; null when
   * they cannot.
   */
  private static @Nullable MessageDigest prototype() {
    try {
      return (MessageDigest) newSha256().clone();
    } catch (CloneNotSupportedException e) {
      return null;
    }
  }
}
