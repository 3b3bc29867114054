package dev.idempotency.client;

import java.io.IOException;

/**
 * An attempt's failure that leaves no doubt the server did not process the request: it never left
 * the client (the attempt's time ran out while it waited for a pooled connection, or while it
 * connected), or the server refused it before processing it (HTTP/2's {@code REFUSED_STREAM}, RFC
 * 9113 section 8.7, which a {@code GOAWAY} also gives the streams it did not take).
 *
 * <p>An adapter reports such a failure as this exception, the transport's own as its {@linkplain
 * #getCause() cause}. The allowlist retries it for any method, keyed or not, as it does a refused
 * connection: nothing can run twice. A call that stops on it says the request was not processed.
 */
public final class RequestNotProcessedException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, saying why the request was not processed
   * @param cause the transport's own failure
   */
  public RequestNotProcessedException(String message, Throwable cause) {
    super(message, cause);
  }
}
