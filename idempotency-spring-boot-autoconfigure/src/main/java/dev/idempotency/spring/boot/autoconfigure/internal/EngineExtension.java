package dev.idempotency.spring.boot.autoconfigure.internal;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Reaper;
import dev.idempotency.spi.KeyStore;
import java.util.List;

/**
 * What an optional part (the meters) adds to the engine and its schedule, as a bean whose type
 * needs none of that part's classes, so that the engine's configuration loads without them.
 */
public interface EngineExtension {
  /** The store the engine drives, wrapping {@code store} (or {@code store} itself). */
  KeyStore decorate(KeyStore store);

  /** Told of every reaper run. */
  void reaperRan(Reaper.Report report);

  /** Periodic work of its own, scheduled with the reaper's. */
  List<ScheduledMaintenance.Task> tasks(IdempotencyEngine engine);

  /**
   * Called as the filter starts a request; the returned action is run as it ends (on the same
   * thread).
   */
  Runnable startRequest();
}
