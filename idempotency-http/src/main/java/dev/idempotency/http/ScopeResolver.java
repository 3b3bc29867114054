package dev.idempotency.http;

import dev.idempotency.Scope;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds the scope a request's key lives in: normally the authenticated caller. Two callers sending
 * the same key reach two unrelated records, so one can never receive the other's stored response.
 *
 * <p>The scope must come from something the client cannot set freely: the authenticated principal,
 * or a header that a trusted gateway sets after authenticating (and strips from client requests).
 * An empty result means "no caller": the handler then uses the configured anonymous scope, or
 * refuses with {@code 401 idempotency_scope_unresolved}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ScopeResolver {

  /**
   * Resolves the scope.
   *
   * @param request the request
   * @return the caller's scope, or empty when the request is not authenticated
   */
  Optional<Scope> resolve(HttpRequestView request);

  /** The default: the authenticated principal's name ({@link HttpRequestView#principalName()}). */
  static ScopeResolver principal() {
    return request -> request.principalName().filter(name -> !name.isEmpty()).map(Scope::of);
  }

  /**
   * The value of a header that a trusted component in front of the application sets after
   * authenticating the caller (an API gateway's {@code X-Account-Id}). Safe only if that component
   * strips the header from every client request; never use it with a header clients can send.
   *
   * @param headerName the header, for example {@code X-Account-Id}
   * @throws NullPointerException if {@code headerName} is null
   */
  static ScopeResolver trustedHeader(String headerName) {
    Objects.requireNonNull(headerName, "headerName");
    return request -> {
      List<String> values = request.headers(headerName);
      return values.size() == 1 && !values.get(0).isBlank()
          ? Optional.of(Scope.of(values.get(0).strip()))
          : Optional.empty();
    };
  }
}
