package dev.idempotency.client.resilience4j;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * What the retry decisions read of a response of type {@code R}, whatever HTTP client produced it:
 * the status, a header ({@code Retry-After}, {@code Content-Type}) and, for the statuses that may
 * carry a problem body, the body's bytes.
 *
 * @param <R> the response type
 */
public interface ResponseReader<R> {
  /**
   * The response's status.
   *
   * @param response the response
   * @return the HTTP status
   */
  int status(R response);

  /**
   * A header of the response.
   *
   * @param response the response
   * @param name the header name, any case
   * @return its first value, or {@code null}
   */
  @Nullable String header(R response, String name);

  /**
   * The response body's bytes, if the response holds them in memory; read only for a 409, 429, 500,
   * 502, 503 or 504 with a JSON content type.
   *
   * @param response the response
   * @return the bytes, or {@code null} (the default) when the body is not at hand
   */
  default byte @Nullable [] body(R response) {
    return null;
  }

  /**
   * The reader of {@code java.net.http} responses; the body is read when it is a {@code String} or
   * a {@code byte[]}.
   *
   * @return the reader
   */
  static ResponseReader<HttpResponse<?>> ofJdk() {
    return new ResponseReader<>() {
      @Override
      public int status(HttpResponse<?> response) {
        return response.statusCode();
      }

      @Override
      public @Nullable String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
      }

      @Override
      public byte @Nullable [] body(HttpResponse<?> response) {
        Object body = response.body();
        if (body instanceof String s) {
          return s.getBytes(StandardCharsets.UTF_8);
        }
        return body instanceof byte[] bytes ? bytes : null;
      }
    };
  }
}
