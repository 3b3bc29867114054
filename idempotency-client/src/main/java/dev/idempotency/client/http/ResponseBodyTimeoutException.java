package dev.idempotency.client.http;

import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Locale;

/**
 * An attempt's time ran out after the response headers arrived, while its body was still being
 * read: a body that stalled, trickled, or never ended. The JDK's request timeout ends at the
 * response headers; the adapter carries the attempt's timeout ({@code min(attemptTimeout, the
 * request's own timeout, time left before the deadline)}) on through the body, and cuts the
 * connection when it runs out.
 *
 * <p>The server had answered when this happened: it received the request, and {@link #statusCode()}
 * says what it answered, so a 2xx means the request was applied. As an {@link HttpTimeoutException}
 * it is classified as a read timeout: retried for an idempotent method or a keyed request while the
 * deadline leaves time, otherwise the cause of the call's {@link
 * dev.idempotency.client.RetriesExhaustedException} (reason {@code DEADLINE} when the deadline
 * passed). A streaming body ({@code BodyHandlers.ofInputStream()}) that is cut after {@code send}
 * returned fails the caller's next read with an {@link java.io.IOException} caused by this
 * exception.
 */
public final class ResponseBodyTimeoutException extends HttpTimeoutException {
  private static final long serialVersionUID = 1L;

  private final int statusCode;
  private final Duration timeout;

  /**
   * Creates the exception.
   *
   * @param statusCode the status of the response whose body timed out
   * @param timeout the attempt's timeout that ran out, measured from the start of the attempt
   */
  public ResponseBodyTimeoutException(int statusCode, Duration timeout) {
    super(
        "the server had answered HTTP "
            + statusCode
            + " (so it received the request), but the response body"
            + " was not complete when the attempt's timeout of "
            + String.format(Locale.ROOT, "%.3f s", timeout.getSeconds() + timeout.getNano() / 1e9)
            + " ran out; the connection was closed");
    this.statusCode = statusCode;
    this.timeout = timeout;
  }

  /**
   * The status the server answered before the body timed out.
   *
   * @return the HTTP status
   */
  public int statusCode() {
    return statusCode;
  }

  /**
   * The attempt's timeout, measured from the start of the attempt, that ran out.
   *
   * @return the timeout
   */
  public Duration timeout() {
    return timeout;
  }
}
