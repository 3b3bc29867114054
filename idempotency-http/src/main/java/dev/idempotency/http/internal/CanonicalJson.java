package dev.idempotency.http.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A small strict JSON (RFC 8259) reader into maps, lists, strings, {@link Num numbers}, booleans
 * and a null marker, and a canonical writer; only for fingerprints, never for output. Depth is
 * bounded so hostile bodies cannot overflow the stack, and every step is linear in the body: the
 * reader runs before the claim, on every request.
 *
 * <p>Strict means that a text it cannot represent exactly is refused (the caller then fingerprints
 * the raw bytes) rather than read as a value another text also has: a <code>&#92;u</code> escape
 * takes exactly four hex digits, and an escaped surrogate must be half of a pair (a lone one has no
 * code point, so it could only be replaced, and two different lone surrogates would read the same).
 */
final class CanonicalJson {
  /** Stands for JSON {@code null} (maps cannot hold Java nulls usefully). */
  static final Object NULL = new Object();

  private static final int MAX_DEPTH = 64;

  private final String s;
  private int i;

  private CanonicalJson(String s) {
    this.s = s;
  }

  /**
   * Parses one JSON value; empty when the bytes are not UTF-8 or not exactly one well-formed value.
   */
  static Optional<Object> parse(byte[] utf8) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(utf8))
              .toString();
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
    CanonicalJson p = new CanonicalJson(text);
    try {
      p.ws();
      Object v = p.value(0);
      p.ws();
      return p.i == text.length() ? Optional.of(v) : Optional.empty();
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      return Optional.empty();
    }
  }

  private Object value(int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException("too deep");
    }
    char c = s.charAt(i);
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> literal("true", true);
      case 'f' -> literal("false", false);
      case 'n' -> literal("null", NULL);
      default -> number();
    };
  }

  private Map<String, Object> object(int depth) {
    Map<String, Object> m = new TreeMap<>(); // String order = UTF-16 code unit order, as JCS sorts
    i++;
    ws();
    if (s.charAt(i) == '}') {
      i++;
      return m;
    }
    while (true) {
      ws();
      if (s.charAt(i) != '"') {
        throw new IllegalArgumentException("member name expected");
      }
      String name = string();
      ws();
      expect(':');
      ws();
      if (m.put(name, value(depth + 1)) != null) {
        throw new IllegalArgumentException(
            "duplicate member " + name); // ambiguous: fingerprint the bytes
      }
      ws();
      char c = s.charAt(i++);
      if (c == '}') {
        return m;
      }
      if (c != ',') {
        throw new IllegalArgumentException("',' or '}' expected");
      }
    }
  }

  private List<Object> array(int depth) {
    List<Object> l = new ArrayList<>();
    i++;
    ws();
    if (s.charAt(i) == ']') {
      i++;
      return l;
    }
    while (true) {
      ws();
      l.add(value(depth + 1));
      ws();
      char c = s.charAt(i++);
      if (c == ']') {
        return l;
      }
      if (c != ',') {
        throw new IllegalArgumentException("',' or ']' expected");
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') {
        return sb.toString();
      }
      if (c < 0x20) {
        throw new IllegalArgumentException("control character in string");
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = s.charAt(i++);
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          char u = hex4();
          if (Character.isHighSurrogate(u)) {
            if (!s.startsWith("\\u", i)) {
              throw new IllegalArgumentException("lone surrogate escape");
            }
            i += 2;
            char low = hex4();
            if (!Character.isLowSurrogate(low)) {
              throw new IllegalArgumentException("lone surrogate escape");
            }
            sb.append(u).append(low);
          } else if (Character.isLowSurrogate(u)) {
            throw new IllegalArgumentException("lone surrogate escape");
          } else {
            sb.append(u);
          }
        }
        default -> throw new IllegalArgumentException("bad escape");
      }
    }
  }

  /** Four hex digits, exactly: {@code Integer.parseInt} would also take a sign. */
  private char hex4() {
    int v = 0;
    for (int end = i + 4; i < end; i++) {
      char c = s.charAt(i);
      int d =
          c >= '0' && c <= '9'
              ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) {
        throw new IllegalArgumentException("four hex digits expected after \\u");
      }
      v = v << 4 | d;
    }
    return (char) v;
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, i)) {
      throw new IllegalArgumentException(word + " expected");
    }
    i += word.length();
    return v;
  }

  /**
   * A number, normalised as it is read: its digits without leading and trailing zeros and its
   * decimal exponent. The text is scanned once; {@code BigDecimal.stripTrailingZeros} would take
   * time quadratic in the digits.
   */
  private Num number() {
    boolean negative = s.charAt(i) == '-';
    if (negative) {
      i++;
    }
    int intStart = i;
    if (s.charAt(i) == '0') {
      i++;
    } else {
      digits();
    }
    int intEnd = i;
    int fracStart = i;
    int fracEnd = i;
    if (i < s.length() && s.charAt(i) == '.') {
      i++;
      fracStart = i;
      digits();
      fracEnd = i;
    }
    long exponent = 0;
    if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      boolean negativeExponent = s.charAt(i) == '-';
      if (s.charAt(i) == '+' || s.charAt(i) == '-') {
        i++;
      }
      int start = i;
      digits();
      int significant = start;
      while (significant < i - 1 && s.charAt(significant) == '0') {
        significant++;
      }
      if (i - significant
          > 15) { // beyond any exponent a decimal value can usefully have; keeps the sums exact
        throw new IllegalArgumentException("exponent out of range");
      }
      exponent = Long.parseLong(s, significant, i, 10);
      if (negativeExponent) {
        exponent = -exponent;
      }
    }
    // the digits are s[intStart, intEnd) + s[fracStart, fracEnd); the value is digits *
    // 10^(exponent - fraction)
    StringBuilder digits =
        new StringBuilder().append(s, intStart, intEnd).append(s, fracStart, fracEnd);
    int first = 0;
    while (first < digits.length() && digits.charAt(first) == '0') {
      first++;
    }
    if (first == digits.length()) {
      return Num.ZERO;
    }
    int last = digits.length();
    while (digits.charAt(last - 1) == '0') {
      last--;
    }
    long scaleExponent = exponent - (fracEnd - fracStart) + (digits.length() - last);
    return new Num(negative, digits.substring(first, last), scaleExponent);
  }

  private void digits() {
    int start = i;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
    }
    if (i == start) {
      throw new IllegalArgumentException("digit expected");
    }
  }

  private void expect(char c) {
    if (s.charAt(i++) != c) {
      throw new IllegalArgumentException("'" + c + "' expected");
    }
  }

  private void ws() {
    while (i < s.length() && " \t\n\r".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
  }

  /**
   * The canonical text of a parsed value: sorted members, no whitespace, normalised numbers,
   * minimal escapes.
   */
  static String text(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    if (v == NULL) {
      sb.append("null");
    } else if (v instanceof Boolean b) {
      sb.append(b.booleanValue());
    } else if (v instanceof Num n) {
      n.writeTo(sb);
    } else if (v instanceof String str) {
      ProblemJson.quote(sb, str);
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        ProblemJson.quote(sb, (String) e.getKey());
        sb.append(':');
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int k = 0; k < l.size(); k++) {
        if (k > 0) {
          sb.append(',');
        }
        write(sb, l.get(k));
      }
      sb.append(']');
    } else {
      throw new IllegalStateException("not a JSON value: " + v.getClass());
    }
  }

  /**
   * A JSON number as a decimal value: {@code (negative ? -1 : 1) * digits * 10^exponent}, with
   * {@code digits} free of leading and trailing zeros (empty for zero), so that equal values are
   * equal numbers.
   */
  record Num(boolean negative, String digits, long exponent) {
    static final Num ZERO = new Num(false, "", 0);

    /**
     * Writes the value as {@code BigDecimal.stripTrailingZeros().toString()} writes it (zero as
     * {@code 0}): plain notation when the exponent is at most 0 and the adjusted exponent at least
     * -6, else one digit, the rest after a point, and {@code E} with a signed exponent. Stored
     * fingerprints depend on this spelling, so it stays.
     */
    void writeTo(StringBuilder sb) {
      if (digits.isEmpty()) {
        sb.append('0');
        return;
      }
      if (negative) {
        sb.append('-');
      }
      int length = digits.length();
      long adjusted = exponent + length - 1;
      if (exponent == 0) {
        sb.append(digits);
      } else if (exponent < 0 && adjusted >= -6) {
        long pointAt = length + exponent; // digits before the point
        if (pointAt > 0) {
          sb.append(digits, 0, (int) pointAt).append('.').append(digits, (int) pointAt, length);
        } else {
          sb.append("0.");
          for (long k = pointAt; k < 0; k++) {
            sb.append('0');
          }
          sb.append(digits);
        }
      } else {
        sb.append(digits.charAt(0));
        if (length > 1) {
          sb.append('.').append(digits, 1, length);
        }
        sb.append('E').append(adjusted > 0 ? "+" : "").append(adjusted);
      }
    }
  }
}
