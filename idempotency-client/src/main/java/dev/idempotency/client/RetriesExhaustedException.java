package dev.idempotency.client;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A call stopped without a response it could return: it tells how many attempts ran, how long the
 * call took, why it stopped ({@link #reason()}), and carries the last response (if the last attempt
 * produced one) and the last failure (as the {@linkplain #getCause() cause}, if the last attempt
 * threw).
 *
 * <p>It is an {@link IOException} so that code written against {@link
 * java.net.http.HttpClient#send} keeps compiling and keeps catching the call's failures in one
 * place. A failure that is a bug (an {@link IllegalArgumentException}, a {@link
 * NullPointerException}, any unchecked exception or error) is never wrapped or retried: it
 * propagates unchanged, and so does anything the caller's own body handler throws or fails its body
 * with, whatever its type. Not thread-safe to mutate, as no exception is; the state is final.
 */
public final class RetriesExhaustedException extends IOException {
  private static final long serialVersionUID = 1L;

  private final StopReason reason;
  private final int attempts;
  private final Duration elapsed;
  private final transient @Nullable Object lastResponse;

  /**
   * Creates the exception.
   *
   * @param message the full message
   * @param reason why the call stopped
   * @param attempts attempts made, {@code >= 1}
   * @param elapsed total time of the call
   * @param lastResponse the last response, or {@code null} if the last attempt threw
   * @param cause the last failure, or {@code null} if the last attempt produced a response
   */
  public RetriesExhaustedException(
      String message,
      StopReason reason,
      int attempts,
      Duration elapsed,
      @Nullable Object lastResponse,
      @Nullable Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.attempts = attempts;
    this.elapsed = Objects.requireNonNull(elapsed, "elapsed");
    this.lastResponse = lastResponse;
  }

  /**
   * Why the call stopped.
   *
   * @return the stop reason
   */
  public StopReason reason() {
    return reason;
  }

  /**
   * How many attempts ran (went to the wire).
   *
   * @return attempts made, {@code >= 1}
   */
  public int attempts() {
    return attempts;
  }

  /**
   * The total time of the call, from the start of the first attempt to the decision to stop.
   *
   * @return the elapsed time
   */
  public Duration elapsed() {
    return elapsed;
  }

  /**
   * The last response, if the last attempt produced one (the {@code java.net.http} adapter puts its
   * {@code IdempotentResponse} here).
   *
   * @return the last response, or empty if the last attempt threw (see {@link #getCause()})
   */
  public Optional<Object> lastResponse() {
    return Optional.ofNullable(lastResponse);
  }

  /**
   * The last response, typed.
   *
   * @param type the expected type, such as {@code java.net.http.HttpResponse.class}
   * @param <R> the type
   * @return the last response if there is one of that type
   */
  public <R> Optional<R> lastResponse(Class<R> type) {
    return type.isInstance(lastResponse) ? Optional.of(type.cast(lastResponse)) : Optional.empty();
  }
}
