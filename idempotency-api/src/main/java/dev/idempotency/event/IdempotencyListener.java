package dev.idempotency.event;

/**
 * Receives the engine's {@link IdempotencyEvent}s.
 *
 * <p>Called synchronously on the thread that made the decision, so it must be quick and
 * thread-safe. An exception it throws is logged and otherwise ignored: a broken listener never
 * changes an outcome.
 */
@FunctionalInterface
public interface IdempotencyListener {
  /** A listener that ignores every event. */
  IdempotencyListener NONE = event -> {};

  /** Handles one event. */
  void onEvent(IdempotencyEvent event);
}
