package dev.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of an operation as a store keeps it, to be replayed verbatim: a status code, the
 * headers that were chosen to be stored, and the body bytes.
 *
 * <p>A replay must be indistinguishable from the original response (the HTTP layer adds only {@code
 * Idempotent-Replayed: true}), so the body is kept as bytes, never re-encoded, and the headers keep
 * their order and the spelling of their names. Which headers are worth storing is the HTTP layer's
 * decision (an allowlist); this type stores what it is given.
 *
 * <p>Immutable and thread-safe: the body and the header map are copied in, and {@link #body()}
 * returns a copy. Non-HTTP operations may use any status in 100 to 999 as a result code.
 */
public final class StoredResponse implements Answer {
  /**
   * The header of a {@linkplain #notStoredMarker not-stored marker}: its value says which response
   * the marker stands for and why that response was not stored.
   */
  public static final String NOT_STORED_HEADER = "Idempotency-Response-Not-Stored";

  private static final byte[] EMPTY = new byte[0];
  private static final int MARKER_STATUS = 500;
  private static final int MAX_REASON_LENGTH = 200;

  private final int status;
  private final Map<String, List<String>> headers;
  private final byte[] body;

  private StoredResponse(int status, Map<String, List<String>> headers, byte[] body) {
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /**
   * Creates a stored response.
   *
   * @param status the status code, 100 to 999
   * @param headers header names to their values, in the order to replay them (copied; names are
   *     kept as given)
   * @param body the body bytes (copied)
   * @return the response
   * @throws NullPointerException if an argument, a header name, a value list or a value is null
   * @throws IllegalArgumentException if the status is out of range, a header name is empty or
   *     repeated ignoring case, or a header name or value contains CR, LF or NUL
   */
  public static StoredResponse of(
      int status, Map<String, ? extends List<String>> headers, byte[] body) {
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(body, "body");
    if (status < 100 || status > 999) {
      throw new IllegalArgumentException("status must be 100 to 999, but was " + status);
    }
    Map<String, List<String>> copy = new LinkedHashMap<>();
    Map<String, String> seen = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
      String name = Objects.requireNonNull(e.getKey(), "header name");
      if (name.isEmpty() || !isFieldText(name)) {
        throw new IllegalArgumentException(
            "header name must be non-empty field text, but was \""
                + IdempotencyKey.escapeForLog(name, 64)
                + "\"");
      }
      String previous = seen.put(name.toLowerCase(Locale.ROOT), name);
      if (previous != null) {
        throw new IllegalArgumentException(
            "header \"" + name + "\" is repeated (as \"" + previous + "\")");
      }
      List<String> values =
          new ArrayList<>(Objects.requireNonNull(e.getValue(), "values of header " + name));
      for (String v : values) {
        if (!isFieldText(Objects.requireNonNull(v, "value of header " + name))) {
          throw new IllegalArgumentException(
              "value of header \"" + name + "\" contains CR, LF or NUL");
        }
      }
      copy.put(name, List.copyOf(values));
    }
    return new StoredResponse(
        status, Collections.unmodifiableMap(copy), body.length == 0 ? EMPTY : body.clone());
  }

  /** A response with a status, no headers and the given body (copied). */
  public static StoredResponse of(int status, byte[] body) {
    return of(status, Map.of(), body);
  }

  /** A response with a status, no headers and the given body as UTF-8. */
  public static StoredResponse ofUtf8(int status, String body) {
    return of(status, Map.of(), body.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The small record stored in place of a response that ran but could not be stored (larger than
   * the store can keep, or refused by it): status 500, no body, and the header {@link
   * #NOT_STORED_HEADER} with the original status and {@code reason}. A retry under the same key
   * replays the marker, so the work does not run again; each binding answers it in its own way
   * (over HTTP, {@code 500 idempotency_response_not_stored}).
   *
   * @param originalStatus the status of the response the marker stands for
   * @param reason why it was not stored, for the log and the replay; cut to 200 characters, CR and
   *     LF replaced by spaces
   * @return the marker
   */
  public static StoredResponse notStoredMarker(int originalStatus, String reason) {
    Objects.requireNonNull(reason, "reason");
    String text = reason.replace('\r', ' ').replace('\n', ' ').replace('\0', ' ');
    if (text.length() > MAX_REASON_LENGTH) {
      text = text.substring(0, MAX_REASON_LENGTH);
    }
    return of(
        MARKER_STATUS, Map.of(NOT_STORED_HEADER, List.of(originalStatus + "; " + text)), EMPTY);
  }

  /**
   * What this response says when it is a {@linkplain #notStoredMarker not-stored marker}: the
   * original status and the reason; empty for any other response.
   */
  public Optional<String> notStoredReason() {
    if (status != MARKER_STATUS || body.length != 0 || headers.size() != 1) {
      return Optional.empty();
    }
    return firstHeader(NOT_STORED_HEADER);
  }

  private static boolean isFieldText(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        return false;
      }
    }
    return true;
  }

  /** This response: a stored response is sent as it is stored. */
  @Override
  public StoredResponse sent() {
    return this;
  }

  /** The status code. */
  public int status() {
    return status;
  }

  /** The stored headers in replay order; unmodifiable. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** The values of a header, matched ignoring case; empty when absent. */
  public List<String> header(String name) {
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name)) {
        return e.getValue();
      }
    }
    return List.of();
  }

  /** The first value of a header, matched ignoring case. */
  public Optional<String> firstHeader(String name) {
    List<String> values = header(name);
    return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }

  /** A copy of the body bytes. */
  public byte[] body() {
    return body.length == 0 ? EMPTY : body.clone();
  }

  /** The body's length in bytes, without copying it. */
  public int bodyLength() {
    return body.length;
  }

  /**
   * The response's size as a store counts it against {@link
   * dev.idempotency.spi.KeyStore#maxResponseBytes()}: the body's bytes plus every header name and
   * value in UTF-8, without any store's own encoding overhead (which each store allows for in the
   * limit it declares).
   */
  public long size() {
    long size = body.length;
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      size += utf8Length(e.getKey());
      for (String value : e.getValue()) {
        size += utf8Length(value);
      }
    }
    return size;
  }

  private static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** The body decoded as UTF-8 (for tests and logs; replays use {@link #body()}). */
  public String bodyAsUtf8() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredResponse other
        && status == other.status
        && headers.equals(other.headers)
        && Arrays.equals(body, other.body);
  }

  @Override
  public int hashCode() {
    return (31 * status + headers.hashCode()) * 31 + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "StoredResponse[status="
        + status
        + ", headers="
        + headers.keySet()
        + ", body="
        + body.length
        + " bytes]";
  }
}
