package dev.idempotency.client;

import java.time.Duration;
import java.util.Optional;

/**
 * What the retry machinery did, published to every {@link RetryListener} of a policy (the taxonomy
 * of Resilience4j's retry events: a retry, a success after retries, a give-up). Immutable value
 * types.
 */
public sealed interface RetryEvent {
  /**
   * The operation, such as {@code POST http://127.0.0.1:8080/orders}.
   *
   * @return a description of the logical call
   */
  String operation();

  /**
   * The idempotency key the call carries on every attempt.
   *
   * @return the key, or empty if the call has none
   */
  Optional<OperationKey> key();

  /**
   * Attempt {@code attempt} failed with a retryable {@code cause}; the next attempt runs after
   * {@code delay}.
   *
   * @param operation the logical call
   * @param key its key
   * @param attempt the attempt that failed, 1-based
   * @param cause what failed, such as {@code HTTP 503} or {@code ConnectException: Connection
   *     refused}
   * @param kind the kind of failure (its price in the budget)
   * @param delay the wait before the next attempt, {@code Retry-After} included
   * @param timeLeft the time left before the deadline, when the wait starts
   */
  record RetryScheduled(
      String operation,
      Optional<OperationKey> key,
      int attempt,
      String cause,
      RetryKind kind,
      Duration delay,
      Duration timeLeft)
      implements RetryEvent {}

  /**
   * The call ended with a final response after at least one retry.
   *
   * @param operation the logical call
   * @param key its key
   * @param attempts attempts made, {@code >= 2}
   * @param elapsed total time of the call
   */
  record SucceededAfterRetries(
      String operation, Optional<OperationKey> key, int attempts, Duration elapsed)
      implements RetryEvent {}

  /**
   * The call stopped retrying; a {@link RetriesExhaustedException} with the same facts follows.
   *
   * @param operation the logical call
   * @param key its key
   * @param attempts attempts made
   * @param elapsed total time of the call
   * @param reason why it stopped
   * @param cause the last failure, such as {@code HTTP 503}
   */
  record GaveUp(
      String operation,
      Optional<OperationKey> key,
      int attempts,
      Duration elapsed,
      StopReason reason,
      String cause)
      implements RetryEvent {}
}
