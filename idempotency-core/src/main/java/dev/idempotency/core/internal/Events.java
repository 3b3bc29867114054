package dev.idempotency.core.internal;

import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.event.IdempotencyListener;

/** Delivers events to the listener so that a throwing listener can never change an outcome. */
public final class Events {
  private static final System.Logger LOG = System.getLogger("dev.idempotency.core.events");

  private Events() {}

  /**
   * Sends {@code event} to {@code listener}, logging (not propagating) anything the listener
   * throws.
   */
  public static void publish(IdempotencyListener listener, IdempotencyEvent event) {
    if (listener == IdempotencyListener.NONE) {
      return;
    }
    try {
      listener.onEvent(event);
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING, "idempotency listener threw on " + event + "; ignored", e);
    }
  }
}
