package dev.idempotency.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One incoming HTTP request, as the framework adapter presents it to {@link IdempotencyHttp}. The
 * adapter reads nothing itself: the handler reads the body, at most once, and only when the request
 * needs a fingerprint.
 *
 * <p>Implementations need not be thread-safe: one request is handled on one thread.
 */
public interface HttpRequestView {

  /**
   * The request method exactly as received, for example {@code POST} (methods are case-sensitive).
   */
  String method();

  /**
   * The request path within the application as the server resolved it: without the context path and
   * the query, percent-decoded, without path parameters ({@code ;name=value}) and with dot segments
   * removed, for example {@code /payments/42}. Endpoint rules and the status endpoint match it, so
   * that {@code /payments;x=1} or {@code /a/%2e%2e/payments} cannot slip past a rule for {@code
   * /payments}.
   */
  String path();

  /**
   * The request path within the application exactly as sent (without the context path and the
   * query; still percent-encoded, path parameters kept), for example {@code /payments;v=2/42}. The
   * built-in fingerprints cover it, so requests that the application may tell apart are different
   * requests. The default is {@link #path()}, for adapters whose framework gives no raw path.
   */
  default String rawPath() {
    return path();
  }

  /** The raw query string, without the {@code ?}, when the request has one. */
  Optional<String> query();

  /**
   * The path prefix under which the application is mounted ({@code ""} at the root, else for
   * example {@code /shop}); prepended to the status URLs the handler hands out.
   */
  default String basePath() {
    return "";
  }

  /**
   * Every value of the header {@code name}, matched ignoring case, in the order received; empty
   * when absent.
   */
  List<String> headers(String name);

  /** The name of the authenticated principal, when the request is authenticated. */
  Optional<String> principalName();

  /** The declared body length ({@code Content-Length}), when declared. */
  OptionalLong contentLength();

  /**
   * The body as a stream; the handler reads it at most once and never beyond its limit plus one
   * byte.
   *
   * @throws IOException if the body cannot be read
   */
  InputStream body() throws IOException;
}
