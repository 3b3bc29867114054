package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * {@code heartbeatAll} as one conditional {@code UpdateItem} per lease, at most {@code parallelism}
 * at a time, all within one time budget. DynamoDB has no conditional batch write ({@code
 * BatchWriteItem} takes no conditions, and {@code TransactWriteItems} would fail every renewal for
 * one lost lease), so renewing costs one write per operation in flight, and the parallelism keeps
 * the time it takes near one round trip per {@code parallelism} leases. The threads end after a
 * minute without work; {@link #close} ends them at once.
 */
public final class ParallelRenewals implements AutoCloseable {
  /** One renewal. */
  @FunctionalInterface
  public interface Renewal {
    /**
     * Renews the lease of {@code id} held under {@code fence}, ending by {@code deadline} ({@link
     * System#nanoTime}).
     *
     * @return true if renewed, false if the fence was refused
     */
    boolean renew(RecordId id, FenceToken fence, long deadline);
  }

  private final ThreadPoolExecutor pool;
  private volatile boolean closed;

  /**
   * @param parallelism the most renewals in flight at once
   * @param threadName the threads' name prefix
   */
  public ParallelRenewals(int parallelism, String threadName) {
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            parallelism,
            parallelism,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, threadName + "-" + n.incrementAndGet());
              t.setDaemon(true); // never holds the JVM open; close() ends them in an orderly way
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Renews every lease within {@code budget}; returns those refused. A renewal not sent before the
   * budget ran out is not sent at all, and the call waits no longer than the budget for those under
   * way.
   *
   * @throws StoreUnavailableException if a renewal could not reach DynamoDB, the budget ran out
   *     before every renewal ended, the calling thread was interrupted, or the store was closed:
   *     which leases were renewed is then unknown
   * @throws KeyStoreException if DynamoDB refused a renewal for good (a missing table)
   */
  public Set<RecordId> renewAll(
      Map<RecordId, FenceToken> leases, Duration budget, Renewal renewal) {
    long deadline = System.nanoTime() + budget.toNanos();
    List<RecordId> ids = new ArrayList<>(leases.size());
    List<Future<Boolean>> results = new ArrayList<>(leases.size());
    try {
      for (Map.Entry<RecordId, FenceToken> lease : leases.entrySet()) {
        if (closed) {
          throw new RejectedExecutionException("closed");
        }
        RecordId id = lease.getKey();
        FenceToken fence = lease.getValue();
        ids.add(id);
        results.add(
            pool.submit(
                () -> {
                  if (closed || deadline - System.nanoTime() <= 0) {
                    throw new CancellationException("not sent: no time left, or closed");
                  }
                  return renewal.renew(id, fence, deadline);
                }));
      }
    } catch (RejectedExecutionException e) {
      results.forEach(f -> f.cancel(true));
      throw closed(leases.size(), e);
    }
    Set<RecordId> refused = new HashSet<>();
    for (int i = 0; i < ids.size(); i++) {
      try {
        long left = deadline - System.nanoTime();
        if (!results.get(i).get(Math.max(0, left), TimeUnit.NANOSECONDS)) {
          refused.add(ids.get(i));
        }
      } catch (ExecutionException e) {
        results.forEach(f -> f.cancel(true));
        throw failure(ids.size(), e.getCause());
      } catch (CancellationException e) {
        results.forEach(f -> f.cancel(true));
        throw closed(ids.size(), e);
      } catch (TimeoutException e) {
        results.forEach(f -> f.cancel(true));
        throw new StoreUnavailableException(
            "renewal of "
                + ids.size()
                + " leases did not end within its budget of "
                + budget
                + ": which were renewed is unknown",
            e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        results.forEach(f -> f.cancel(true));
        throw new StoreUnavailableException(
            "renewal of " + ids.size() + " leases interrupted: which were renewed is unknown", e);
      }
    }
    return refused;
  }

  private StoreUnavailableException closed(int leases, Exception e) {
    if (closed) {
      return new StoreUnavailableException(
          "renewal of " + leases + " leases: the store was closed; which were renewed is unknown",
          e);
    }
    // a renewal that found its time already spent when a thread became free to send it
    return new StoreUnavailableException(
        "renewal of "
            + leases
            + " leases: some were not sent before the budget ran out; which were renewed is"
            + " unknown",
        e);
  }

  private static KeyStoreException failure(int leases, @Nullable Throwable cause) {
    if (cause instanceof CancellationException c) {
      return new StoreUnavailableException(
          "renewal of "
              + leases
              + " leases: some were not sent before the budget ran out or the store closed;"
              + " which were renewed is unknown",
          c);
    }
    if (cause instanceof KeyStoreException k) {
      return k;
    }
    String message =
        "renewal of " + leases + " leases failed: " + cause + "; which were renewed is unknown";
    return cause == null
        ? new StoreUnavailableException(message)
        : new StoreUnavailableException(message, cause);
  }

  /**
   * Ends the threads: renewals not yet sent are dropped and their callers told (their {@code
   * renewAll} throws {@link StoreUnavailableException}), renewals under way are interrupted and
   * waited for up to 5 s. A {@code renewAll} after this throws {@link StoreUnavailableException}.
   */
  @Override
  public void close() {
    closed = true;
    for (Runnable dropped : pool.shutdownNow()) {
      if (dropped instanceof Future<?> f) {
        f.cancel(false);
      }
    }
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
