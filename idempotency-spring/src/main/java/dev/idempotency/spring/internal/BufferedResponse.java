package dev.idempotency.spring.internal;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response read whole within its attempt: a body cut off or lost is a failed attempt, retried
 * like a lost connection, rather than a failure the caller meets after the interceptor returned.
 */
public final class BufferedResponse implements ClientHttpResponse {
  private final HttpStatusCode status;
  private final String statusText;
  private final HttpHeaders headers;
  private final byte[] body;

  private BufferedResponse(
      HttpStatusCode status, String statusText, HttpHeaders headers, byte[] body) {
    this.status = status;
    this.statusText = statusText;
    this.headers = headers;
    this.body = body;
  }

  /**
   * Reads {@code response} whole, and closes it.
   *
   * @throws InterruptedIOException if the body's read timed out or was interrupted (a read timeout)
   * @throws EOFException if the body was cut off after the status and headers arrived: a connection
   *     lost after the request was sent, whatever the client called it
   */
  public static BufferedResponse read(ClientHttpResponse response) throws IOException {
    try (response) {
      HttpStatusCode status = response.getStatusCode();
      String statusText = response.getStatusText();
      HttpHeaders headers = HttpHeaders.copyOf(response.getHeaders());
      byte[] body;
      try (InputStream in = response.getBody()) {
        body = in.readAllBytes();
      } catch (InterruptedIOException timeout) {
        throw timeout;
      } catch (IOException cutOff) {
        EOFException e =
            new EOFException(
                "the response body (HTTP " + status.value() + ") was cut off: " + cutOff);
        e.initCause(cutOff);
        throw e;
      }
      return new BufferedResponse(status, statusText, headers, body);
    }
  }

  /** The body's bytes (not a copy). */
  public byte[] bytes() {
    return body;
  }

  @Override
  public HttpStatusCode getStatusCode() {
    return status;
  }

  @Override
  public String getStatusText() {
    return statusText;
  }

  @Override
  public HttpHeaders getHeaders() {
    return headers;
  }

  @Override
  public InputStream getBody() {
    return new ByteArrayInputStream(body);
  }

  @Override
  public void close() {
    // nothing to release: the connection's response was closed when it was read
  }
}
