package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * {@code heartbeatAll} as one conditional {@code UpdateItem} per lease, at most {@code parallelism}
 * at a time. DynamoDB has no conditional batch write ({@code BatchWriteItem} takes no conditions,
 * and {@code TransactWriteItems} would fail every renewal for one lost lease), so renewing costs
 * one write per operation in flight, and the parallelism keeps the time it takes near one round
 * trip per {@code parallelism} leases. The threads end after a minute without work; {@link #close}
 * ends them at once.
 */
public final class ParallelRenewals implements AutoCloseable {
  /** One renewal: the store's {@code heartbeat}, which throws {@link LeaseLostException}. */
  @FunctionalInterface
  public interface Renewal {
    /** Renews the lease of {@code id} held under {@code fence}. */
    void renew(RecordId id, FenceToken fence);
  }

  private final ThreadPoolExecutor pool;
  private final Duration bound;

  /**
   * @param parallelism the most renewals in flight at once
   * @param bound how long the whole batch may take: the call timeout of one request, times the
   *     number of rounds the batch needs
   * @param threadName the threads' name prefix
   */
  public ParallelRenewals(int parallelism, Duration bound, String threadName) {
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
    this.bound = bound;
  }

  /**
   * Renews every lease; returns those refused.
   *
   * @throws StoreUnavailableException if any renewal could not reach DynamoDB, or the batch took
   *     longer than its bound: which leases were renewed is then unknown
   */
  public Set<RecordId> renewAll(Map<RecordId, FenceToken> leases, Renewal renewal) {
    List<RecordId> ids = new ArrayList<>(leases.size());
    List<Future<Boolean>> results = new ArrayList<>(leases.size());
    for (Map.Entry<RecordId, FenceToken> lease : leases.entrySet()) {
      RecordId id = lease.getKey();
      FenceToken fence = lease.getValue();
      ids.add(id);
      results.add(
          pool.submit(
              () -> {
                try {
                  renewal.renew(id, fence);
                  return Boolean.TRUE;
                } catch (LeaseLostException e) {
                  return Boolean.FALSE;
                }
              }));
    }
    int rounds = (ids.size() + pool.getMaximumPoolSize() - 1) / pool.getMaximumPoolSize();
    long deadline = System.nanoTime() + bound.toNanos() * Math.max(1, rounds);
    Set<RecordId> refused = new HashSet<>();
    RuntimeException failure = null;
    for (int i = 0; i < ids.size(); i++) {
      try {
        if (!results.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          refused.add(ids.get(i));
        }
      } catch (ExecutionException e) {
        failure = failure != null ? failure : unavailable(e.getCause());
      } catch (TimeoutException e) {
        results.forEach(f -> f.cancel(true));
        throw new StoreUnavailableException(
            "renewal of " + ids.size() + " leases did not end within its bound", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        results.forEach(f -> f.cancel(true));
        throw new StoreUnavailableException("renewal of " + ids.size() + " leases interrupted", e);
      }
    }
    if (failure != null) {
      throw failure;
    }
    return refused;
  }

  private static RuntimeException unavailable(@Nullable Throwable cause) {
    if (cause instanceof RuntimeException r) {
      return r;
    }
    return cause == null
        ? new StoreUnavailableException("a renewal failed")
        : new StoreUnavailableException("a renewal failed: " + cause, cause);
  }

  /** Ends the threads, waiting up to 5 s for renewals under way. */
  @Override
  public void close() {
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
