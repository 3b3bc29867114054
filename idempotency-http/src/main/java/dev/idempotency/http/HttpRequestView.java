package dev.idempotency.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One incoming HTTP request, as the framework adapter presents it to {@link IdempotencyHttp}. The adapter reads
 * nothing itself: the handler reads the body, at most once, and only when the request needs a fingerprint.
 *
 * <p>Implementations need not be thread-safe: one request is handled on one thread.
 */
public interface HttpRequestView {

  /** The request method exactly as received, for example {@code POST} (methods are case-sensitive). */
  String method();

  /**
   * The request path within the application, without the context path and without the query, for example
   * {@code /payments/42}. Endpoint rules match it, and the default fingerprint covers it.
   */
  String path();

  /** The raw query string, without the {@code ?}, when the request has one. */
  Optional<String> query();

  /**
   * The path prefix under which the application is mounted ({@code ""} at the root, else for example
   * {@code /shop}); prepended to the status URLs the handler hands out.
   */
  default String basePath() {
    return "";
  }

  /** Every value of the header {@code name}, matched ignoring case, in the order received; empty when absent. */
  List<String> headers(String name);

  /** The name of the authenticated principal, when the request is authenticated. */
  Optional<String> principalName();

  /** The declared body length ({@code Content-Length}), when declared. */
  OptionalLong contentLength();

  /**
   * The body as a stream; the handler reads it at most once and never beyond its limit plus one byte.
   *
   * @throws IOException if the body cannot be read
   */
  InputStream body() throws IOException;
}
