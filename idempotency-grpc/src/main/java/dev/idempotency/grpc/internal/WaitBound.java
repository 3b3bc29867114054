package dev.idempotency.grpc.internal;

import dev.idempotency.core.WaitCancellation;
import io.grpc.Context;

/**
 * Ends the engine's wait for an in-flight key when the call's context is cancelled (its deadline
 * passed, or the client cancelled), through a {@link WaitCancellation}: it wakes the engine while
 * it sleeps between claims and never interrupts the thread, so a claim under way (a store round
 * trip) finishes and is answered as it is. Once the handler has started the wait is over and the
 * bound does nothing, so the binding never disturbs a handler.
 */
final class WaitBound implements Context.CancellationListener {
  private final WaitCancellation cancellation = new WaitCancellation();
  private boolean started;

  /** What the engine's wait watches. */
  WaitCancellation cancellation() {
    return cancellation;
  }

  @Override
  public synchronized void cancelled(Context context) {
    if (!started) {
      cancellation.cancel();
    }
  }

  /**
   * Marks the handler as started.
   *
   * @return false if the context was cancelled before: the work must not start
   */
  synchronized boolean start() {
    started = true;
    return !cancellation.isCancelled();
  }
}
