package dev.idempotency.core;

import dev.idempotency.FenceToken;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Guards a resource downstream of a fenced owner: keeps the highest fence seen per resource and
 * refuses writes with an older one.
 *
 * <p>Fencing protects only what checks the token. The store refuses a taken-over owner's writes to
 * the record, but an owner paused past its lease (a GC pause, a frozen VM) wakes up believing it
 * still owns the work and calls out: a payment ledger, a file, another service. That resource must
 * compare the caller's fence with the highest it has seen.
 *
 * <p>What fencing buys, precisely: a write that arrives after a newer owner's fence reached the
 * resource is refused. What it does not: it does not make a write safe to do twice. An owner that
 * debited an account and was then taken over leaves the debit in place, and the new owner, whose
 * fence is newer, is admitted: if it debits again, the account is debited twice. So every guarded
 * write must be idempotent per request: keyed by the execution's {@code downstreamKey} (the same
 * for every owner of one request, because a takeover keeps the generation it derives from) and
 * written only if absent, as a ledger entry. The fence then stops the stale owner's later writes;
 * the key stops the new owner from repeating what the old one finished.
 *
 * <p>Where the resource is a database, both belong in one transaction, with the fence stored per
 * request:
 *
 * <pre>{@code
 * -- 1. the request's fence row: raised to the owner's fence unless a newer owner's is there
 * MERGE INTO request_fence f USING (VALUES (:downstreamKey, :fence)) v(k, fence)
 *    ON f.request_key = v.k
 *  WHEN MATCHED AND f.fence <= v.fence THEN UPDATE SET fence = v.fence
 *  WHEN NOT MATCHED THEN INSERT VALUES (v.k, v.fence);   -- 0 rows: a newer owner; roll back, stop
 * -- 2. the business write, once per request: an entry keyed by the request
 * INSERT INTO ledger_entry (request_key, account, amount) VALUES (:downstreamKey, ?, ?)
 *     ON CONFLICT (request_key) DO NOTHING;               -- an earlier owner did it already
 * }</pre>
 *
 * The fence comparison admits an equal fence ({@code <=}): one owner may write several times, and
 * {@link #guard} does the same. A newer owner claims by taking the record over, which draws a
 * strictly larger fence, so an older owner's next write is refused once the newer owner has written
 * anything under the request's fence.
 *
 * <p>This class is the same check for a resource inside one process (a service receiving the fence
 * with each call, an in-memory cache, a file writer): {@link #guard} runs the write only if its
 * fence is not older than the highest seen for that resource, and holds the resource's lock while
 * the write runs, so an older owner's write can never interleave with a newer one's. The check and
 * the write are one step under that lock; there is no separate check.
 *
 * <p>Fences of different records are unrelated: use one resource key per request (its {@code
 * downstreamKey}) or per record, never one for several records. Memory: one entry per resource for
 * the checker's lifetime (about 100 bytes plus the key); a resource is never forgotten, because a
 * checker that forgot one would admit any fence for it again. For an unbounded set of resources
 * keep the fence in the resource's own storage instead, as the SQL above does.
 *
 * <p>Thread-safe.
 *
 * @param <K> what identifies a guarded resource
 */
public final class FenceChecker<K> {
  private final ConcurrentHashMap<K, Highest> highest = new ConcurrentHashMap<>();

  /** A checker that has seen no fence yet. */
  public FenceChecker() {}

  /** The highest fence seen for one resource; its monitor is the resource's lock. */
  private static final class Highest {
    private @Nullable FenceToken fence; // guarded by this

    /** Records {@code next} unless a newer fence was seen; returns that newer one, else null. */
    synchronized @Nullable FenceToken advanceTo(FenceToken next) {
      FenceToken seen = fence;
      if (seen != null && seen.isNewerThan(next)) {
        return seen;
      }
      fence = next;
      return null;
    }
  }

  /**
   * Runs {@code write} if {@code fence} is not older than the highest fence seen for {@code
   * resource} (an equal fence is admitted: the same owner writing again), and records it as the
   * highest; under the resource's lock. The write must be idempotent per request (see the class
   * comment): a newer owner is admitted after an older one's write.
   *
   * @return what the write returned
   * @throws StaleFenceException if a newer fence was seen; the write did not run
   * @throws NullPointerException if an argument is null
   */
  public <T> T guard(K resource, FenceToken fence, Supplier<T> write) {
    Objects.requireNonNull(write, "write");
    Highest h = entry(resource, fence);
    synchronized (h) {
      FenceToken newer = h.advanceTo(fence);
      if (newer != null) {
        throw new StaleFenceException(resource, fence, newer);
      }
      return write.get();
    }
  }

  /** The highest fence seen for {@code resource}, if any. */
  public Optional<FenceToken> highest(K resource) {
    Highest h = highest.get(Objects.requireNonNull(resource, "resource"));
    if (h == null) {
      return Optional.empty();
    }
    synchronized (h) {
      return Optional.ofNullable(h.fence);
    }
  }

  private Highest entry(K resource, FenceToken fence) {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(fence, "fence");
    return highest.computeIfAbsent(resource, r -> new Highest());
  }
}
