package dev.idempotency;

import java.util.Objects;

/**
 * The namespace a key lives in: normally the authenticated caller (an account, a tenant, an API
 * client id).
 *
 * <p>A store keys its records by {@code (scope, key)}, so the same key string under two scopes
 * names two unrelated records: one caller can never receive another caller's stored response by
 * guessing its key. The scope is resolved by the server from the authenticated principal, never
 * from a value the client may set freely.
 *
 * <p>A scope is 1 to {@value #MAX_LENGTH} characters of any Unicode text without control characters
 * and without unpaired surrogates. The last rule keeps scopes distinct as bytes: UTF-8 cannot
 * encode a lone surrogate, and Java's encoder turns it into {@code ?}, so {@code "t\uD800"} and
 * {@code "t?"} would name one record in every store that keys by the scope's UTF-8 bytes. Instances
 * are immutable and thread-safe; equality is by value.
 */
public final class Scope {
  /** The longest scope accepted, in characters. */
  public static final int MAX_LENGTH = 255;

  private final String value;

  private Scope(String value) {
    this.value = value;
  }

  /**
   * Returns the scope with the given name.
   *
   * @param value the scope's name, for example an account id
   * @return the scope
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if {@code value} is empty, longer than {@value #MAX_LENGTH}
   *     characters, or contains a control character or an unpaired surrogate
   */
  public static Scope of(String value) {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty() || value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "scope must be 1 to " + MAX_LENGTH + " characters, but had " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            "scope must not contain control characters (index " + i + ")");
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++; // a pair: one supplementary character
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(
            "scope must not contain an unpaired surrogate (index " + i + ")");
      }
    }
    return new Scope(value);
  }

  /** The scope's name. */
  public String value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Scope other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return value;
  }
}
