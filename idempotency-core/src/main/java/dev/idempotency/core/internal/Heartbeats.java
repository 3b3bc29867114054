package dev.idempotency.core.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Renews leases while operations run: one daemon thread for the engine, shared by all running operations (a
 * heartbeat is one short store write, so one thread serves many).
 */
public final class Heartbeats implements AutoCloseable {
  private final ScheduledThreadPoolExecutor scheduler;

  /** Starts the heartbeat thread. */
  public Heartbeats() {
    scheduler = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "idempotency-heartbeat");
      t.setDaemon(true);
      return t;
    });
    // cancelled heartbeats must not pile up in the queue until their (far) due time
    scheduler.setRemoveOnCancelPolicy(true);
  }

  /** Runs {@code beat} every {@code interval} until the returned handle is cancelled. */
  public ScheduledFuture<?> every(Duration interval, Runnable beat) {
    long nanos = interval.toNanos();
    return scheduler.scheduleWithFixedDelay(beat, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /** The scheduler, for the reaper and completer to share. */
  public ScheduledExecutorService scheduler() {
    return scheduler;
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
