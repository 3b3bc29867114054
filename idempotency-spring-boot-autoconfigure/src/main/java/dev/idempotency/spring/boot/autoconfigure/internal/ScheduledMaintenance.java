package dev.idempotency.spring.boot.autoconfigure.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the library's periodic work (the reaper, the completer, the abandoned-keys sample) on one
 * daemon thread, from the context's start to its stop. A run that throws (the store is down) is
 * logged and the next run comes as scheduled: a failure never ends the schedule. Stopping waits for
 * a run under way up to the stop timeout, then interrupts it: the reaper deletes in bounded batches
 * and the completer checks for interruption between records, and anything left half-done is what a
 * crash leaves, which the store's leases and fences already cover.
 */
public final class ScheduledMaintenance implements SmartLifecycle {
  private static final System.Logger LOG = System.getLogger(ScheduledMaintenance.class.getName());

  /** One periodic task. */
  public record Task(String name, Duration interval, Duration initialDelay, Job job) {
    /** Checks the arguments. */
    public Task {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(job, "job");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException(name + " interval must be > 0, but was " + interval);
      }
    }
  }

  /** The work of one run. */
  @FunctionalInterface
  public interface Job {
    /** Runs once. */
    void run() throws Exception;
  }

  private final List<Task> tasks;
  private final Duration stopTimeout;
  private @Nullable ScheduledExecutorService executor;

  /**
   * Schedules {@code tasks}; {@link #stop()} waits up to {@code stopTimeout} for a run under way.
   */
  public ScheduledMaintenance(List<Task> tasks, Duration stopTimeout) {
    this.tasks = List.copyOf(tasks);
    this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
  }

  /** The names of the scheduled tasks. */
  public List<String> taskNames() {
    List<String> names = new ArrayList<>();
    tasks.forEach(t -> names.add(t.name()));
    return names;
  }

  @Override
  public synchronized void start() {
    if (executor != null || tasks.isEmpty()) {
      return;
    }
    ScheduledExecutorService e =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "idempotency-maintenance");
              t.setDaemon(true);
              return t;
            });
    for (Task task : tasks) {
      // runLogged catches everything a run throws, so the future never completes exceptionally
      ScheduledFuture<?> unused =
          e.scheduleWithFixedDelay(
              () -> runLogged(task),
              task.initialDelay().toMillis(),
              task.interval().toMillis(),
              TimeUnit.MILLISECONDS);
    }
    executor = e;
  }

  private static void runLogged(Task task) {
    try {
      task.job().run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception | Error e) {
      // an exception would cancel every later run of the task: log it and keep the schedule
      LOG.log(System.Logger.Level.WARNING, "idempotency " + task.name() + " run failed", e);
    }
  }

  @Override
  public synchronized void stop() {
    ScheduledExecutorService e = executor;
    if (e == null) {
      return;
    }
    executor = null;
    e.shutdown();
    try {
      if (!e.awaitTermination(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        e.shutdownNow();
        if (!e.awaitTermination(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
          LOG.log(
              System.Logger.Level.WARNING,
              "idempotency maintenance did not stop within twice " + stopTimeout);
        }
      }
    } catch (InterruptedException ie) {
      e.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return executor != null;
  }
}
