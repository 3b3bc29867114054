package dev.idempotency.core.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Renews the leases of running operations: one daemon thread per engine ticks every heartbeat interval and beats
 * every operation registered at that moment.
 *
 * <p>Why one tick for all instead of a scheduled task per operation: registering is one concurrent-set insert and
 * removal on the request's hot path, where scheduling and cancelling a task would take the scheduler's queue lock
 * twice per request. An operation registered just after a tick waits at most one interval (a third of the lease by
 * default) for its first beat; one registered just before a tick is beaten early, which only renews its lease.
 * Beats run one after the other: a store call that hangs delays the beats behind it, so a store should bound its
 * calls (a query or socket timeout well under the heartbeat interval).
 *
 * @param <T> what a beat needs to know about one running operation
 */
public final class Heartbeats<T> implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Heartbeats.class.getName());
  private final Set<T> running = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor scheduler;

  /** Starts the heartbeat thread, which calls {@code beat} for every registered operation each {@code interval}. */
  public Heartbeats(Duration interval, Consumer<T> beat) {
    scheduler = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "idempotency-heartbeat");
      t.setDaemon(true);
      return t;
    });
    long nanos = interval.toNanos();
    scheduler.scheduleWithFixedDelay(() -> {
      for (T operation : running) {
        try {
          beat.accept(operation);
        } catch (Throwable t) {
          // anything escaping one beat would cancel the schedule, and with it every lease's renewal
          LOG.log(System.Logger.Level.ERROR, "heartbeat failed; the others go on", t);
        }
      }
    }, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /** Beats {@code operation} on every tick until {@link #stop} is called for it. */
  public void start(T operation) {
    running.add(operation);
  }

  /** Stops beating {@code operation}; a beat already under way may still finish. */
  public void stop(T operation) {
    running.remove(operation);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
