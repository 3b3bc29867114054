package dev.idempotency.http.internal;

import dev.idempotency.Fingerprint;
import dev.idempotency.http.HttpRequestView;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The built-in fingerprint strategies. Each input part is framed by its 8-byte length: no two inputs collide. */
public final class Fingerprints {
  private static final byte[] RAW = "idempotency-fingerprint/1 raw\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CANONICAL = "idempotency-fingerprint/1 json\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MEMBERS = "idempotency-fingerprint/1 members\n".getBytes(StandardCharsets.US_ASCII);

  private Fingerprints() {}

  /** SHA-256 of method, path with query, body bytes. */
  public static Fingerprint methodPathBody(HttpRequestView request, byte[] body) {
    return digest(RAW, request, body);
  }

  /** SHA-256 of method, path with query, canonical JSON (or the raw bytes when the body is not JSON). */
  public static Fingerprint canonicalJson(HttpRequestView request, byte[] body) {
    Optional<Object> parsed = Json.parse(body);
    if (parsed.isEmpty()) {
      return methodPathBody(request, body);
    }
    return digest(CANONICAL, request, Json.canonical(parsed.get()).getBytes(StandardCharsets.UTF_8));
  }

  /** SHA-256 of method, path with query, and the named members of a JSON object body (canonical). */
  public static Fingerprint jsonMembers(HttpRequestView request, byte[] body, List<String> members) {
    Optional<Object> parsed = Json.parse(body);
    if (parsed.isEmpty() || !(parsed.get() instanceof Map<?, ?> object)) {
      return methodPathBody(request, body);
    }
    StringBuilder selected = new StringBuilder();
    for (String name : members) {
      // "name" then either "=" and the canonical value, or "!" for an absent member: null and absent differ
      selected.append(Json.canonical(name));
      selected.append(object.containsKey(name) ? "=" + Json.canonical(object.get(name)) : "!").append('\n');
    }
    return digest(MEMBERS, request, selected.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static Fingerprint digest(byte[] domain, HttpRequestView request, byte[] body) {
    MessageDigest sha = sha256();
    sha.update(domain);
    frame(sha, request.method().getBytes(StandardCharsets.UTF_8));
    String target = request.path() + request.query().map(q -> "?" + q).orElse("");
    frame(sha, target.getBytes(StandardCharsets.UTF_8));
    frame(sha, body);
    return Fingerprint.of(sha.digest());
  }

  private static void frame(MessageDigest sha, byte[] part) {
    sha.update(ByteBuffer.allocate(Long.BYTES).putLong(part.length).array());
    sha.update(part);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-256", e);
    }
  }
}
