package dev.idempotency.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader for JMH's result files: objects become {@link Map}s, arrays {@link List}s,
 * numbers {@link Double}s (JMH writes "NaN" for missing scores as a string). Enough for well-formed
 * input; not a general library, which is why the benchmarks module carries no JSON dependency for
 * it.
 */
final class JmhResultJson {
  private final String s;
  private int i;

  private JmhResultJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    JmhResultJson json = new JmhResultJson(text);
    Object value = json.value();
    json.skipSpace();
    if (json.i != text.length()) {
      throw json.error("trailing characters");
    }
    return value;
  }

  private Object value() {
    skipSpace();
    char c = s.charAt(i);
    return switch (c) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", true);
      case 'f' -> literal("false", false);
      case 'n' -> literal("null", null);
      default -> number();
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    i++;
    skipSpace();
    if (s.charAt(i) == '}') {
      i++;
      return map;
    }
    while (true) {
      skipSpace();
      String key = string();
      skipSpace();
      expect(':');
      map.put(key, value());
      skipSpace();
      if (s.charAt(i) == ',') {
        i++;
        continue;
      }
      expect('}');
      return map;
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    i++;
    skipSpace();
    if (s.charAt(i) == ']') {
      i++;
      return list;
    }
    while (true) {
      list.add(value());
      skipSpace();
      if (s.charAt(i) == ',') {
        i++;
        continue;
      }
      expect(']');
      return list;
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
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case 'n' -> sb.append('\n');
          case 't' -> sb.append('\t');
          case 'r' -> sb.append('\r');
          case 'b' -> sb.append('\b');
          case 'f' -> sb.append('\f');
          case 'u' -> {
            sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> sb.append(e);
        }
      } else {
        sb.append(c);
      }
    }
  }

  private Double number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (start == i) {
      throw error("unexpected character '" + s.charAt(i) + "'");
    }
    return Double.valueOf(s.substring(start, i));
  }

  private Object literal(String word, Object value) {
    if (!s.startsWith(word, i)) {
      throw error("expected " + word);
    }
    i += word.length();
    return value;
  }

  private void expect(char c) {
    if (s.charAt(i) != c) {
      throw error("expected '" + c + "'");
    }
    i++;
  }

  private void skipSpace() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + i);
  }
}
