package dev.idempotency.grpc.internal;

import io.grpc.Context;

/**
 * Ends the engine's wait for an in-flight key when the call's context is cancelled (its deadline
 * passed, or the client cancelled): the engine sleeps between its claims, and an interrupt ends the
 * sleep. The interrupt may also land in one of those claims, a store round trip, which the store
 * then reports as unavailable (docs/grpc.md, Threads, says what that costs). Once the handler has
 * started the wait is over and no interrupt is ever sent, so a handler is never interrupted by the
 * binding.
 */
final class WaitBound implements Context.CancellationListener {
  private final Thread owner;
  private boolean started;
  private boolean finished;
  private boolean interrupted;

  WaitBound(Thread owner) {
    this.owner = owner;
  }

  @Override
  public synchronized void cancelled(Context context) {
    if (!started && !finished) {
      interrupted = true;
      owner.interrupt();
    }
  }

  /**
   * Marks the handler as started.
   *
   * @return false if the context was cancelled before: the work must not start (the interrupt is
   *     cleared, so that the engine's release of the key is not disturbed by it)
   */
  synchronized boolean start() {
    started = true;
    if (interrupted) {
      Thread.interrupted();
      return false;
    }
    return true;
  }

  /** Ends the bound; clears an interrupt this bound sent that nobody consumed. */
  synchronized void finish() {
    finished = true;
    if (interrupted && !started) {
      Thread.interrupted();
    }
  }
}
