package dev.idempotency.client.http;

import dev.idempotency.client.Deadline;
import dev.idempotency.client.OperationKey;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One logical call: a request, the idempotency key fixed for it, and optionally its own deadline.
 * The key is decided when the call is built ({@link RetryingHttpClient#call(HttpRequest)}): taken
 * from the request's {@code Idempotency-Key} header, or minted once for POST and PATCH. {@link
 * #idempotencyKey(OperationKey)} may replace it before the first send; after that it is fixed, and
 * every attempt, and every later {@code send} of this same call, carries it.
 *
 * <p>Not thread-safe: build and send a call from one thread (its asynchronous attempts run wherever
 * the client runs them).
 */
public final class HttpCall {
  private final RetryingHttpClient client;
  private final HttpRequest request;
  private @Nullable OperationKey key;
  private @Nullable Deadline deadline;
  private @Nullable Duration deadlineBudget;
  private boolean sent;

  HttpCall(RetryingHttpClient client, HttpRequest request, @Nullable OperationKey key) {
    this.client = client;
    this.request = request;
    this.key = key;
  }

  /**
   * Sets the key of this logical operation (prefer {@link OperationKey#forEvent(String, String)}).
   *
   * @param key the key every attempt will carry
   * @return this call
   * @throws IllegalStateException if the call was already sent: its key is fixed
   */
  public HttpCall idempotencyKey(OperationKey key) {
    Objects.requireNonNull(key, "key");
    if (sent) {
      throw new IllegalStateException(
          "the idempotency key is fixed once the call was sent; it was "
              + this.key
              + ". Build a new call for a new logical operation.");
    }
    this.key = key;
    return this;
  }

  /**
   * The key the call's attempts carry.
   *
   * @return the key, or empty for a call without one (a GET, or an unsafe method the client does
   *     not key)
   */
  public Optional<OperationKey> idempotencyKey() {
    return Optional.ofNullable(key);
  }

  /**
   * Sets an overall deadline for each send of this call, starting when the send starts (replacing
   * the policy's).
   *
   * @param budget {@code > 0}
   * @return this call
   * @throws IllegalArgumentException if zero or negative
   */
  public HttpCall deadline(Duration budget) {
    Objects.requireNonNull(budget, "budget");
    if (budget.isZero() || budget.isNegative()) {
      throw new IllegalArgumentException("deadline must be > 0, but was " + budget);
    }
    this.deadlineBudget = budget;
    this.deadline = null;
    return this;
  }

  /**
   * Sets a deadline that is already running, such as the one of the inbound request this call
   * serves.
   *
   * @param deadline the deadline
   * @return this call
   */
  public HttpCall deadline(Deadline deadline) {
    this.deadline = Objects.requireNonNull(deadline, "deadline");
    this.deadlineBudget = null;
    return this;
  }

  /**
   * Sends the call, retrying by the client's policy, and blocks until the final response.
   *
   * @param handler the body handler (called once per attempt; the request body is sent whole on
   *     every attempt, see {@link RetryingHttpClient})
   * @param <T> the body type
   * @return the final response; a response that is not retryable (a 400, a 404, a 409 for a reused
   *     key) is returned, not thrown
   * @throws dev.idempotency.client.RetriesExhaustedException when the call stopped without a
   *     response it could return: it carries the stop reason, the attempts, the time and the last
   *     response or failure
   * @throws IOException otherwise only when the caller's own body handler fails with one (such as
   *     {@code BodyHandlers.ofFile} that cannot write its file): what the handler throws, or fails
   *     its body with, propagates unchanged after that attempt, never retried; every I/O failure of
   *     the exchange itself ends in {@code RetriesExhaustedException}
   * @throws InterruptedException if interrupted while sending or waiting
   */
  public <T> IdempotentResponse<T> send(BodyHandler<T> handler)
      throws IOException, InterruptedException {
    Objects.requireNonNull(handler, "handler");
    sent = true;
    return client.execute(request, key, currentDeadline(), handler);
  }

  /**
   * Sends the call asynchronously; waits between attempts block no thread.
   *
   * @param handler the body handler
   * @param <T> the body type
   * @return a future of the final response, completed exceptionally with a {@link
   *     dev.idempotency.client.RetriesExhaustedException} when the call stopped (or, unchanged,
   *     with an unchecked exception for a bug, or with whatever the caller's own body handler
   *     failed with)
   */
  public <T> CompletableFuture<IdempotentResponse<T>> sendAsync(BodyHandler<T> handler) {
    Objects.requireNonNull(handler, "handler");
    sent = true;
    return client.executeAsync(request, key, currentDeadline(), handler);
  }

  /** The deadline of a send starting now; null for the policy's. */
  private @Nullable Deadline currentDeadline() {
    if (deadline != null) {
      return deadline;
    }
    if (deadlineBudget != null) {
      return Deadline.after(deadlineBudget, client.policy().environment().ticker());
    }
    return null;
  }
}
