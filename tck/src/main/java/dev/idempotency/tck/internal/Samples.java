package dev.idempotency.tck.internal;

import dev.idempotency.Fingerprint;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Values the rules and the generators use: fingerprints, record ids, responses and recovery points.
 */
public final class Samples {
  private Samples() {}

  /** A SHA-256 fingerprint of {@code text}, as the HTTP layer would make one. */
  public static Fingerprint fingerprint(String text) {
    try {
      return Fingerprint.of(
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** The record {@code key} in {@code scope}. */
  public static RecordId id(String scope, String key) {
    return new RecordId(Scope.of(scope), IdempotencyKey.of(key));
  }

  /** A response that names what produced it: status 201, two ordered headers, a text body. */
  public static StoredResponse response(String label) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("text/plain; charset=utf-8"));
    headers.put("X-Produced-By", List.of(label));
    return StoredResponse.of(
        201, headers, ("response of " + label).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A binary response of exactly {@code size} bytes as {@link StoredResponse#size()} counts them:
   * one header, the rest body bytes of a fixed pattern that is no valid UTF-8 text.
   *
   * @throws IllegalArgumentException if {@code size} is too small for the header, or over 2 GiB
   */
  public static StoredResponse responseOfSize(long size) {
    Map<String, List<String>> headers = Map.of("Content-Type", List.of("application/octet-stream"));
    long headerBytes = StoredResponse.of(200, headers, new byte[0]).size();
    long bodyLength = size - headerBytes;
    if (bodyLength < 0 || bodyLength > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("no response of " + size + " bytes can be built");
    }
    byte[] body = new byte[(int) bodyLength];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) (0x80 | (i * 31));
    }
    return StoredResponse.of(200, headers, body);
  }

  /**
   * A random response: a status among success and stored failures, 0 to 3 ordered headers, a text
   * or binary body.
   */
  public static StoredResponse randomResponse(SplittableRandom rnd, String label) {
    int[] statuses = {200, 201, 202, 400, 409, 422, 500, 503};
    Map<String, List<String>> headers = new LinkedHashMap<>();
    int n = rnd.nextInt(4);
    String[] names = {"Content-Type", "Location", "x-Trace-ID", "Cache-Control"};
    for (int i = 0; i < n; i++) {
      headers.put(
          names[i], i % 2 == 0 ? List.of(label + "-" + i) : List.of("b-" + label, "a-" + label));
    }
    byte[] body;
    if (rnd.nextInt(5) == 0) {
      body = new byte[rnd.nextInt(40)];
      rnd.nextBytes(body);
    } else {
      body = ("body of " + label).getBytes(StandardCharsets.UTF_8);
    }
    return StoredResponse.of(statuses[rnd.nextInt(statuses.length)], headers, body);
  }

  /**
   * Whether two responses are byte-identical: same status, same header names spelled the same in
   * the same order, same values in the same order, same body bytes. Stricter than {@link
   * StoredResponse#equals}, whose header comparison ignores order.
   */
  public static boolean identical(StoredResponse a, StoredResponse b) {
    return a.status() == b.status()
        && List.copyOf(a.headers().entrySet()).equals(List.copyOf(b.headers().entrySet()))
        && java.util.Arrays.equals(a.body(), b.body());
  }

  /** A recovery point named {@code name} with a few bytes of data. */
  public static RecoveryPoint point(String name) {
    return RecoveryPoint.of(name, ("data of " + name).getBytes(StandardCharsets.UTF_8));
  }
}
