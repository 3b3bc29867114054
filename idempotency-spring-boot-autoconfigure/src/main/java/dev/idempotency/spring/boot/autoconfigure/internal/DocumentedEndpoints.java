package dev.idempotency.spring.boot.autoconfigure.internal;

import dev.idempotency.http.EndpointRule;
import java.util.List;

/**
 * The endpoint rules an OpenAPI document declares, for the HTTP handler's builder.
 *
 * @param rules in the order the builder takes them
 */
public record DocumentedEndpoints(List<EndpointRule> rules) {
  /** Copies {@code rules}. */
  public DocumentedEndpoints {
    rules = List.copyOf(rules);
  }
}
