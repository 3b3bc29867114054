package dev.idempotency.http.internal;

import java.nio.charset.StandardCharsets;

/**
 * Writes RFC 9457 problem bodies (and other small JSON objects) by hand: members in a fixed order,
 * strings escaped per RFC 8259 (quote, backslash, every control character; everything else as
 * UTF-8).
 */
public final class ProblemJson {
  private final StringBuilder sb = new StringBuilder("{");

  /** Starts an object. */
  public ProblemJson() {}

  /** Adds a string member. */
  public ProblemJson put(String name, String value) {
    sep();
    quote(sb, name);
    sb.append(':');
    quote(sb, value);
    return this;
  }

  /** Adds a number member. */
  public ProblemJson put(String name, long value) {
    sep();
    quote(sb, name);
    sb.append(':').append(value);
    return this;
  }

  /** Adds a boolean member. */
  public ProblemJson put(String name, boolean value) {
    sep();
    quote(sb, name);
    sb.append(':').append(value);
    return this;
  }

  private void sep() {
    if (sb.length() > 1) {
      sb.append(',');
    }
  }

  /** The object as UTF-8 bytes. */
  public byte[] toBytes() {
    return (sb + "}").getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return sb + "}";
  }

  /**
   * Appends {@code s} as a JSON string literal. Lone surrogates are replaced, so the output is
   * always valid UTF-8.
   */
  public static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x7F || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else if (Character.isSurrogate(c)) {
            boolean paired =
                Character.isHighSurrogate(c)
                    && k + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(k + 1));
            if (paired) {
              out.append(c).append(s.charAt(++k));
            } else {
              out.append("\\ufffd");
            }
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
