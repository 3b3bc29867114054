package dev.idempotency.store.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A stored response's headers as one hash field: per header its name, then each value preceded by
 * NUL, then LF; UTF-8. {@code StoredResponse} refuses CR, LF and NUL in names and values, so the
 * two separators never occur inside them, and the form keeps order, spelling, empty value lists and
 * empty values. Stateless.
 */
public final class HeaderLines {
  private HeaderLines() {}

  /** The encoded headers. */
  public static byte[] encode(Map<String, List<String>> headers) {
    StringBuilder sb = new StringBuilder();
    headers.forEach(
        (name, values) -> {
          sb.append(name);
          values.forEach(v -> sb.append('\0').append(v));
          sb.append('\n');
        });
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The headers of an encoded field, in their order. */
  public static Map<String, List<String>> decode(byte[] encoded) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    String text = new String(encoded, StandardCharsets.UTF_8);
    int start = 0;
    while (start < text.length()) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = text.length();
      }
      String[] parts = text.substring(start, end).split("\0", -1);
      List<String> values = new ArrayList<>(parts.length - 1);
      for (int i = 1; i < parts.length; i++) {
        values.add(parts[i]);
      }
      headers.put(parts[0], values);
      start = end + 1;
    }
    return headers;
  }
}
