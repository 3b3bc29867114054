package dev.idempotency.http.internal;

import java.math.BigDecimal;
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
 * A small strict JSON (RFC 8259) reader into maps, lists, strings, {@link BigDecimal}s, booleans and a null marker,
 * and a canonical writer; only for fingerprints, never for output. Depth is bounded so hostile bodies cannot
 * overflow the stack.
 */
final class Json {
  /** Stands for JSON {@code null} (maps cannot hold Java nulls usefully). */
  static final Object NULL = new Object();
  private static final int MAX_DEPTH = 64;

  private final String s;
  private int i;

  private Json(String s) {
    this.s = s;
  }

  /** Parses one JSON value; empty when the bytes are not UTF-8 or not exactly one well-formed value. */
  static Optional<Object> parse(byte[] utf8) {
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8)).toString();
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
    Json p = new Json(text);
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
    switch (c) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", NULL);
      default:
        return number();
    }
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
        throw new IllegalArgumentException("duplicate member " + name); // ambiguous: fingerprint the bytes
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
        case '"': case '\\': case '/':
          sb.append(e);
          break;
        case 'b':
          sb.append('\b');
          break;
        case 'f':
          sb.append('\f');
          break;
        case 'n':
          sb.append('\n');
          break;
        case 'r':
          sb.append('\r');
          break;
        case 't':
          sb.append('\t');
          break;
        case 'u':
          sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
          break;
        default:
          throw new IllegalArgumentException("bad escape");
      }
    }
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, i)) {
      throw new IllegalArgumentException(word + " expected");
    }
    i += word.length();
    return v;
  }

  private BigDecimal number() {
    int start = i;
    if (s.charAt(i) == '-') {
      i++;
    }
    if (s.charAt(i) == '0') {
      i++;
    } else {
      digits();
    }
    if (i < s.length() && s.charAt(i) == '.') {
      i++;
      digits();
    }
    if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (s.charAt(i) == '+' || s.charAt(i) == '-') {
        i++;
      }
      digits();
    }
    return new BigDecimal(s.substring(start, i));
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
    while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) {
      i++;
    }
  }

  /** The canonical text of a parsed value: sorted members, no whitespace, normalised numbers, minimal escapes. */
  static String canonical(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    if (v == NULL) {
      sb.append("null");
    } else if (v instanceof Boolean b) {
      sb.append(b.booleanValue());
    } else if (v instanceof BigDecimal n) {
      sb.append(n.signum() == 0 ? "0" : n.stripTrailingZeros().toString());
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
}
