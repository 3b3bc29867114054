package dev.idempotency.store.redis;

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
 * compare the caller's fence with the highest it has seen. Where the resource is a database, the
 * check belongs in the write itself, with the fence stored beside the business row:
 *
 * <pre>{@code
 * UPDATE accounts SET balance = balance + ?, fence = ?   -- the owner's fence
 *  WHERE id = ? AND fence < ?                            -- 0 rows: a newer owner wrote first
 * }</pre>
 *
 * ({@code fence <= ?} lets one owner write the row more than once). This class is the same check
 * for a resource inside one process (a service receiving the fence with each call, an in-memory
 * cache, a file writer): {@link #guard} runs the write only if its fence is not older than the
 * highest seen for that resource, and holds the resource's lock while the write runs, so an older
 * owner's write can never interleave with a newer one's.
 *
 * <p>Fences of different records are unrelated: use one resource key per record (or per row the
 * records write), never one for several records. Memory: one small entry per resource for the
 * checker's lifetime (about 100 bytes plus the key); a resource is never forgotten, because a
 * checker that forgot one would admit any fence for it again.
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
   * resource}, and records it as the highest; under the resource's lock.
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

  /**
   * Records {@code fence} for {@code resource} if it is not older than the highest seen: for a
   * resource whose write is elsewhere, checked before it.
   *
   * @return whether the fence was admitted
   * @throws NullPointerException if an argument is null
   */
  public boolean admit(K resource, FenceToken fence) {
    return entry(resource, fence).advanceTo(fence) == null;
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
