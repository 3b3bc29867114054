package dev.idempotency.client;

/**
 * Receives every {@link RetryEvent} of a policy, on the thread that made the decision, before the
 * wait starts. Keep it fast; an exception it throws is logged and otherwise ignored (a broken
 * listener never breaks a call). Implementations must be thread-safe: one policy serves concurrent
 * calls.
 */
@FunctionalInterface
public interface RetryListener {
  /**
   * Called once per event.
   *
   * @param event the event
   */
  void onEvent(RetryEvent event);
}
