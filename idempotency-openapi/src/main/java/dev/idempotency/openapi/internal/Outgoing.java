package dev.idempotency.openapi.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One request to send: method, path (with its query), headers, body. Immutable.
 *
 * @param body null for none
 * @param contentType the body's type, when it has one
 */
record Outgoing(
    String method,
    String path,
    Map<String, String> headers,
    @Nullable String body,
    @Nullable String contentType) {
  Outgoing {
    headers = Map.copyOf(headers);
  }

  /** This request with one header more (or replaced). */
  Outgoing withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.keySet().removeIf(n -> n.equalsIgnoreCase(name));
    h.put(name, value);
    return new Outgoing(method, path, h, body, contentType);
  }

  /** This request with another body. */
  Outgoing withBody(@Nullable String newBody) {
    return new Outgoing(method, path, headers, newBody, contentType);
  }
}
