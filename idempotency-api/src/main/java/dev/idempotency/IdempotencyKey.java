package dev.idempotency;

import java.util.Objects;

/**
 * A client-minted idempotency key: 1 to {@value #MAX_LENGTH} characters of printable ASCII (0x21 to
 * 0x7E).
 *
 * <p>The client mints the key and reuses it on every attempt of one logical operation; the server
 * never derives it. A key is only meaningful together with its {@link Scope}: the record a store
 * keeps is keyed by {@code (scope, key)}, so the same key sent by two callers never collides.
 *
 * <p>{@link #of(String)} takes the bare key. {@link #parseHeader(String)} takes the value of an
 * {@code Idempotency-Key} header, which may be the bare key or the quoted structured-field string
 * form of the (expired, never ratified) IETF draft, {@code "8e03978e-40d5-43e8-bc93-6894a57f9324"};
 * both forms of the same key yield equal keys. Invalid input throws {@link
 * InvalidIdempotencyKeyException} naming the rule it broke.
 *
 * <p>Instances are immutable and thread-safe; equality is by value and case-sensitive.
 */
public final class IdempotencyKey {
  /** The longest key accepted, in characters (and bytes: keys are ASCII). */
  public static final int MAX_LENGTH = 255;

  private final String value;

  private IdempotencyKey(String value) {
    this.value = value;
  }

  /**
   * Validates a bare key.
   *
   * @param value the key, without surrounding quotes
   * @return the key
   * @throws NullPointerException if {@code value} is null
   * @throws InvalidIdempotencyKeyException if the key is empty, longer than {@value #MAX_LENGTH}
   *     characters, or has a character outside 0x21 to 0x7E
   */
  public static IdempotencyKey of(String value) {
    Objects.requireNonNull(value, "value");
    validate(value, value);
    return new IdempotencyKey(value);
  }

  /**
   * Parses the value of an {@code Idempotency-Key} header: the bare key, or the key as a
   * structured-field string ({@code "…"}, with {@code \"} and {@code \\} as the only escapes).
   * Leading and trailing spaces and tabs, which HTTP strips from field values anyway, are ignored.
   *
   * @param headerValue the raw header value
   * @return the key
   * @throws NullPointerException if {@code headerValue} is null
   * @throws InvalidIdempotencyKeyException if the value breaks a rule of {@link #of(String)}, or
   *     starts with a double quote without being a well-formed structured-field string
   */
  public static IdempotencyKey parseHeader(String headerValue) {
    Objects.requireNonNull(headerValue, "headerValue");
    String trimmed = stripOws(headerValue);
    if (trimmed.isEmpty() || trimmed.charAt(0) != '"') {
      validate(trimmed, headerValue);
      return new IdempotencyKey(trimmed);
    }
    StringBuilder unquoted = new StringBuilder(trimmed.length());
    int i = 1;
    boolean closed = false;
    while (i < trimmed.length()) {
      char c = trimmed.charAt(i);
      if (c == '\\') {
        if (i + 1 >= trimmed.length()
            || (trimmed.charAt(i + 1) != '"' && trimmed.charAt(i + 1) != '\\')) {
          throw new InvalidIdempotencyKeyException(
              InvalidIdempotencyKeyException.Rule.MALFORMED_QUOTED_STRING, i, headerValue);
        }
        unquoted.append(trimmed.charAt(i + 1));
        i += 2;
        continue;
      }
      if (c == '"') {
        closed = true;
        i++;
        break;
      }
      unquoted.append(c);
      i++;
    }
    if (!closed || i != trimmed.length()) {
      throw new InvalidIdempotencyKeyException(
          InvalidIdempotencyKeyException.Rule.MALFORMED_QUOTED_STRING,
          closed ? i : -1,
          headerValue);
    }
    String key = unquoted.toString();
    validate(key, headerValue);
    return new IdempotencyKey(key);
  }

  private static String stripOws(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
      end--;
    }
    return s.substring(start, end);
  }

  private static void validate(String key, String input) {
    if (key.isEmpty()) {
      throw new InvalidIdempotencyKeyException(
          InvalidIdempotencyKeyException.Rule.EMPTY, -1, input);
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        throw new InvalidIdempotencyKeyException(
            InvalidIdempotencyKeyException.Rule.ILLEGAL_CHARACTER, i, input);
      }
    }
    if (key.length() > MAX_LENGTH) {
      throw new InvalidIdempotencyKeyException(
          InvalidIdempotencyKeyException.Rule.TOO_LONG, -1, input);
    }
  }

  /**
   * Escapes control and non-ASCII characters and cuts the result to {@code max} characters, for
   * messages.
   */
  static String escapeForLog(String input, int max) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < input.length() && sb.length() < max; i++) {
      char c = input.charAt(i);
      if (c >= 0x20 && c <= 0x7E && c != '"' && c != '\\') {
        sb.append(c);
      } else {
        sb.append(String.format("\\u%04x", (int) c));
      }
    }
    if (sb.length() >= max && input.length() > max) {
      sb.append('…');
    }
    return sb.toString();
  }

  /** The key as the client sent it (unquoted). */
  public String value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdempotencyKey other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  /** The key itself: keys are client-chosen identifiers, not secrets. */
  @Override
  public String toString() {
    return value;
  }
}
