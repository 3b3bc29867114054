package dev.idempotency.core.internal;

import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Stores the response of an operation that ran, under its owner's fence, and does not give up while
 * the lease allows: once the work has run, a store's failure must not lead to running it again. The
 * one place where a failure at completion is classified:
 *
 * <ul>
 *   <li>a response larger than {@link KeyStore#maxResponseBytes()} is replaced by the not-stored
 *       marker ({@link StoredResponse#notStoredMarker}) before it is sent;
 *   <li>{@link StoreUnavailableException} (an outage, a timeout: repeating may succeed) is retried
 *       with backoff (50 ms, doubling, at most 1 s or an eighth of the lease) for at most one lease
 *       from the first failure (wall time, so that a test clock that stands still cannot make it
 *       endless), and sooner when the owner is told to stop ({@link ExecutionImpl#leaseLost()}: its
 *       lease runs short unconfirmed, within the safety margin, or it ran past {@code
 *       maxOperationTime}). The heartbeats keep renewing the lease meanwhile, so a completion that
 *       begins late in the lease still gets a whole lease to succeed in;
 *   <li>any other failure ({@link KeyStoreException}: too large after all, a value the store
 *       refuses; or a store's unexpected runtime exception): repeating cannot help, so the marker
 *       is written in place of the response, under the same retries;
 *   <li>{@link LeaseLostException}: another owner has the record; thrown to the caller.
 * </ul>
 *
 * Called on the operation's thread after it returned; not thread-safe.
 */
public final class Completion {
  private static final System.Logger LOG = System.getLogger(Completion.class.getName());
  private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long LONGEST_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** What ended up in the store. */
  public enum Stored {
    /** The response itself. */
    RESPONSE,
    /** The not-stored marker in its place: a retry replays the marker. */
    MARKER,
    /** Nothing: the record stays in flight, and a retry after the lease may run the work again. */
    NOTHING
  }

  private final KeyStore store;
  private final InstantSource clock;
  private final Duration lease;
  private final Consumer<IdempotencyEvent> publish;

  /**
   * A completion over {@code store}.
   *
   * @param lease the engine's lease: the longest the retries of one completion go on
   */
  public Completion(
      KeyStore store, InstantSource clock, Duration lease, Consumer<IdempotencyEvent> publish) {
    this.store = store;
    this.clock = clock;
    this.lease = lease;
    this.publish = publish;
  }

  /**
   * Stores {@code response} (or the marker in its place) for {@code execution}, publishing {@code
   * Completed}, {@code ResponseNotStored} or {@code CompletionFailed}.
   *
   * @throws LeaseLostException if another owner took the record over (published as {@code
   *     LeaseLost})
   */
  public Stored complete(ExecutionImpl execution, StoredResponse response) {
    RecordId id = execution.recordId();
    StoredResponse toStore = response;
    @Nullable String notStoredReason = null;
    if (response.size() > store.maxResponseBytes()) {
      notStoredReason =
          "the response ("
              + response.size()
              + " bytes) is larger than the store keeps ("
              + store.maxResponseBytes()
              + " bytes)";
      toStore = StoredResponse.notStoredMarker(response.status(), notStoredReason);
    }
    long firstFailure = 0;
    long pause = FIRST_PAUSE_NANOS;
    // several tries fit in one heartbeat interval's worth of a lease, however short it is
    long longestPause =
        Math.max(FIRST_PAUSE_NANOS, Math.min(LONGEST_PAUSE_NANOS, lease.toNanos() / 8));
    int attempts = 0;
    while (true) {
      attempts++;
      RuntimeException failure;
      try {
        store.complete(id, execution.fence(), toStore, clock.instant());
        return stored(execution, response, notStoredReason);
      } catch (LeaseLostException lost) {
        if (attempts > 1) {
          // an earlier attempt whose answer was lost may have committed (a frozen server runs the
          // statement when it wakes): then the record is complete under this owner's own fence
          long readUntil = (firstFailure == 0 ? System.nanoTime() : firstFailure) + lease.toNanos();
          Stored own = committedEarlier(execution, response, readUntil, longestPause);
          if (own != null) {
            return own;
          }
        }
        // the work has returned: its effects stand, and the new owner runs it again
        publish.accept(
            new IdempotencyEvent.LeaseLost(id, clock.instant(), execution.fence(), true));
        throw lost;
      } catch (StoreUnavailableException e) {
        failure = e;
      } catch (RuntimeException e) {
        // repeating the same write cannot help; the marker is small and plain
        if (notStoredReason != null) {
          return failed(execution, attempts, e);
        }
        notStoredReason = "the store refused the response: " + e;
        toStore = StoredResponse.notStoredMarker(response.status(), notStoredReason);
        LOG.log(
            System.Logger.Level.WARNING,
            "the store refused the response of " + id + "; storing the not-stored marker instead",
            e);
        continue;
      }
      long now = System.nanoTime();
      if (firstFailure == 0) {
        firstFailure = now;
      }
      long left = firstFailure + lease.toNanos() - now;
      if (execution.leaseLost() || left <= 0 || !pause(Math.min(pause, left))) {
        return failed(execution, attempts, failure);
      }
      pause = Math.min(pause * 2, longestPause);
    }
  }

  /**
   * What an earlier attempt stored, when the record is complete under the execution's own fence:
   * the response, or the marker (which an attempt refused for another reason than an outage may
   * have committed before the marker replaced it); null when it is not, or cannot be read.
   */
  private @Nullable Stored committedEarlier(
      ExecutionImpl execution, StoredResponse response, long readUntil, long longestPause) {
    Optional<RecordSnapshot> record;
    long pause = FIRST_PAUSE_NANOS;
    while (true) {
      try {
        record = store.lookup(execution.recordId());
        break;
      } catch (StoreUnavailableException e) {
        // the store that answered the completion late may answer this read late too: asked again
        // while the lease lasts, as the completion was (seen in CI: dynalite frozen, then slow)
        long left = readUntil - System.nanoTime();
        if (left <= 0 || !pause(Math.min(pause, left))) {
          return null;
        }
        pause = Math.min(pause * 2, longestPause);
      } catch (RuntimeException e) {
        return null;
      }
    }
    if (record.isEmpty()
        || record.get().state() != KeyState.COMPLETE
        || !record.get().fence().equals(execution.fence())) {
      return null;
    }
    Optional<String> markerReason =
        record.get().response().flatMap(StoredResponse::notStoredReason);
    return stored(execution, response, markerReason.orElse(null));
  }

  private Stored stored(
      ExecutionImpl execution, StoredResponse response, @Nullable String notStoredReason) {
    if (notStoredReason == null) {
      publish.accept(
          new IdempotencyEvent.Completed(
              execution.recordId(), clock.instant(), execution.fence(), response.status()));
      return Stored.RESPONSE;
    }
    LOG.log(
        System.Logger.Level.WARNING,
        () ->
            "stored the not-stored marker for "
                + execution.recordId()
                + " in place of its response: "
                + notStoredReason
                + "; a retry gets the marker, and the operation does not run again");
    publish.accept(
        new IdempotencyEvent.ResponseNotStored(
            execution.recordId(),
            clock.instant(),
            execution.fence(),
            response.status(),
            notStoredReason));
    return Stored.MARKER;
  }

  private Stored failed(ExecutionImpl execution, int attempts, RuntimeException last) {
    LOG.log(
        System.Logger.Level.WARNING,
        "could not store the result of "
            + execution.recordId()
            + " ("
            + attempts
            + " attempts); the key stays in flight, and a retry after its lease expires runs the"
            + " operation again unless it left a recovery point",
        last);
    publish.accept(
        new IdempotencyEvent.CompletionFailed(
            execution.recordId(),
            clock.instant(),
            execution.fence(),
            attempts,
            String.valueOf(last.getMessage())));
    return Stored.NOTHING;
  }

  /** Sleeps between two attempts; false when interrupted (the interrupt is kept). */
  private static boolean pause(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
