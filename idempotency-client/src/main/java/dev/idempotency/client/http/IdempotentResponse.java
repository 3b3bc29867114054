package dev.idempotency.client.http;

import dev.idempotency.client.OperationKey;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * The final response of a logical call, with what the retries did: how many attempts ran, the
 * idempotency key they all carried, the total time, and whether the server answered with a replay
 * of an earlier result.
 *
 * <p>A replay ({@code Idempotent-Replayed: true}) is the normal ending of a write whose first
 * response was lost: the server executed it once and sent the stored result again. Immutable if the
 * body is; thread-safe to read.
 *
 * @param <T> the body type
 */
public final class IdempotentResponse<T> implements HttpResponse<T> {
  /** The response header that marks a replay. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  private final HttpResponse<?> raw;
  private final T body;
  private final int attempts;
  private final Optional<OperationKey> key;
  private final Duration elapsed;

  IdempotentResponse(
      HttpResponse<?> raw, T body, int attempts, Optional<OperationKey> key, Duration elapsed) {
    this.raw = raw;
    this.body = body;
    this.attempts = attempts;
    this.key = key;
    this.elapsed = elapsed;
  }

  /**
   * Whether the server replayed a stored result ({@code Idempotent-Replayed: true}) instead of
   * executing again.
   *
   * @return {@code true} for a replay
   */
  public boolean replayed() {
    return raw.headers()
        .firstValue(REPLAYED_HEADER)
        .map(v -> v.trim().toLowerCase(Locale.ROOT).equals("true"))
        .orElse(false);
  }

  /**
   * The number of attempts that went to the wire for this response, this one included. The JDK's
   * own hidden re-sends (see the module docs) are below this count and not in it.
   *
   * @return attempts, {@code >= 1}
   */
  public int attempts() {
    return attempts;
  }

  /**
   * The idempotency key every attempt carried.
   *
   * @return the key, or empty if the call had none
   */
  public Optional<OperationKey> idempotencyKey() {
    return key;
  }

  /**
   * The time from the start of the call to this response, waits included.
   *
   * @return the elapsed time
   */
  public Duration elapsed() {
    return elapsed;
  }

  @Override
  public int statusCode() {
    return raw.statusCode();
  }

  /** The request of the final attempt, with its idempotency key and attempt timeout. */
  @Override
  public HttpRequest request() {
    return raw.request();
  }

  /**
   * Always empty: redirects are followed by the wrapped client, and their responses are not kept
   * here.
   */
  @Override
  public Optional<HttpResponse<T>> previousResponse() {
    return Optional.empty();
  }

  @Override
  public HttpHeaders headers() {
    return raw.headers();
  }

  @Override
  public T body() {
    return body;
  }

  @Override
  public Optional<SSLSession> sslSession() {
    return raw.sslSession();
  }

  @Override
  public URI uri() {
    return raw.uri();
  }

  @Override
  public HttpClient.Version version() {
    return raw.version();
  }

  @Override
  public String toString() {
    return "IdempotentResponse["
        + request().method()
        + " "
        + uri()
        + " -> "
        + statusCode()
        + ", attempts="
        + attempts
        + ", replayed="
        + replayed()
        + key.map(k -> ", key=" + k).orElse("")
        + "]";
  }
}
