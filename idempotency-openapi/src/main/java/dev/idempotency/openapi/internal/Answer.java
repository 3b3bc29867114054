package dev.idempotency.openapi.internal;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** One answer of the server under test: its status, headers and body. Immutable. */
final class Answer {
  private final int status;
  private final byte[] body;
  private final Map<String, List<String>> headers;

  Answer(int status, byte[] body, Map<String, List<String>> headers) {
    this.status = status;
    this.body = body.clone();
    Map<String, List<String>> lower = new TreeMap<>();
    headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
    this.headers = lower;
  }

  Answer(int status, byte[] body) {
    this(status, body, Map.of());
  }

  int status() {
    return status;
  }

  byte[] body() {
    return body.clone();
  }

  boolean success() {
    return status >= 200 && status < 300;
  }

  /** The header's first value, its name matched ignoring case; null when absent. */
  @Nullable String header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** Same status and the same body, byte for byte: what a replay must be. */
  boolean sameBytes(Answer other) {
    return status == other.status && Arrays.equals(body, other.body);
  }

  @Override
  public String toString() {
    return status + " (" + body.length + " bytes)";
  }
}
