package dev.idempotency.testing;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** Ending a test fixture's threads, so that none outlives the test that started it. */
public final class ThreadPools {
  private ThreadPools() {}

  /**
   * Shuts {@code pool} down, interrupting its threads, and waits up to {@code grace} for them to
   * end. Close the fixture's sockets first: a blocked socket read does not answer an interrupt.
   *
   * <p>A pool counts as terminated once its last worker has left its task loop, a moment before
   * that thread has ended; a caller that must see the threads gone uses {@link #newCachedPool} and
   * {@link Joinable#shutDownAndJoin}.
   *
   * @param pool the fixture's pool
   * @param grace how long its threads may take to end
   * @param owner the fixture, for the message
   * @throws IllegalStateException if a thread is still running after {@code grace}, or the wait was
   *     interrupted
   */
  public static void shutDown(ExecutorService pool, Duration grace, String owner) {
    pool.shutdownNow();
    try {
      if (!pool.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            owner + ": a thread was still running " + grace + " after close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(owner + ": interrupted while its threads were ending", e);
    }
  }

  /**
   * A cached pool whose threads carry {@code threadName} and are remembered, so that closing it can
   * wait until each has ended, not only until each has stopped taking tasks.
   *
   * @param threadName the name of every thread of the pool
   * @return the pool and its threads
   */
  public static Joinable newCachedPool(String threadName) {
    return new Joinable(threadName);
  }

  /** A pool that knows its threads; see {@link #newCachedPool}. */
  public static final class Joinable {
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final ExecutorService pool;

    private Joinable(String threadName) {
      ThreadFactory factory =
          r -> {
            Thread t = new Thread(r, threadName);
            threads.removeIf(old -> old.getState() == Thread.State.TERMINATED);
            threads.add(t);
            return t;
          };
      pool = Executors.newCachedThreadPool(factory);
    }

    /** Returns the pool to run tasks on. */
    public ExecutorService executor() {
      return pool;
    }

    /**
     * {@link ThreadPools#shutDown} and then a join of every thread the pool ever started, all
     * within {@code grace}.
     *
     * @param grace how long the threads may take to end
     * @param owner the fixture, for the message
     * @throws IllegalStateException if a thread is still alive after {@code grace}, or the wait was
     *     interrupted
     */
    public void shutDownAndJoin(Duration grace, String owner) {
      long deadline = System.nanoTime() + grace.toNanos();
      shutDown(pool, grace, owner);
      try {
        for (Thread t : threads) {
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          t.join(Math.max(1, left));
          if (t.isAlive()) {
            throw new IllegalStateException(
                owner + ": thread " + t.getName() + " was still alive " + grace + " after close");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(owner + ": interrupted while its threads were ending", e);
      }
    }
  }
}
