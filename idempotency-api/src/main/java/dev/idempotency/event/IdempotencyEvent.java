package dev.idempotency.event;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Something the engine decided about one record. Every event carries the record and the engine's
 * time; switch over the permitted records to handle them. Events are immutable.
 */
public sealed interface IdempotencyEvent {

  /** The record the event is about. */
  RecordId id();

  /** When it happened, by the engine's clock. */
  Instant at();

  /** A claim won a fresh record: the operation runs. */
  record Claimed(RecordId id, Instant at, FenceToken fence) implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Claimed {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
    }
  }

  /** A claim took over an in-flight record whose lease had expired; the operation resumes. */
  record TakenOver(RecordId id, Instant at, FenceToken fence, Optional<RecoveryPoint> resumeFrom)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public TakenOver {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(resumeFrom, "resumeFrom");
    }
  }

  /** A completed record's stored response was replayed. */
  record Replayed(RecordId id, Instant at, int status) implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Replayed {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
    }
  }

  /**
   * The record was in flight under another owner; the caller got the conflict (after waiting, if
   * configured).
   */
  record InFlightConflict(RecordId id, Instant at, Duration retryAfter, Duration waited)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public InFlightConflict {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(retryAfter, "retryAfter");
      Objects.requireNonNull(waited, "waited");
    }
  }

  /** The key was reused with another fingerprint; rejected. */
  record Mismatched(RecordId id, Instant at, KeyState existingState) implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Mismatched {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(existingState, "existingState");
    }
  }

  /** The operation's result was stored under the owner's fence. */
  record Completed(RecordId id, Instant at, FenceToken fence, int status)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Completed {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
    }
  }

  /**
   * The owner gave the record up, so a retry runs anew: the operation failed before committing
   * anything, or its response was one the stored-failure policy does not store.
   */
  record Released(RecordId id, Instant at, FenceToken fence, String reason)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Released {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The operation failed after committing a phase: the record stays in flight for a retry or the
   * completer.
   */
  record LeftInFlight(RecordId id, Instant at, FenceToken fence, RecoveryPoint lastPoint)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public LeftInFlight {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(lastPoint, "lastPoint");
    }
  }

  /**
   * A fenced write of this owner was refused: another owner took the record over.
   *
   * @param id the record
   * @param at the engine's time
   * @param fence the owner's fence
   * @param afterWork true when the owner's work had returned its answer and it was the completion
   *     that was refused: the work's effects stand, no answer was stored under this owner, and the
   *     owner that took the record over runs the work again (from its last recovery point, if it
   *     left one): one of the events that can lead to a duplicate side effect. False when the loss
   *     was found while the work ran (a renewal or a checkpoint was refused, and the owner is told
   *     to stop before its next call out), after the work failed, or when the work's writes rolled
   *     back with its transaction.
   */
  record LeaseLost(RecordId id, Instant at, FenceToken fence, boolean afterWork)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public LeaseLost {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
    }

    /**
     * A loss found before the work returned its answer ({@code afterWork} false).
     *
     * @throws NullPointerException if an argument is null
     */
    public LeaseLost(RecordId id, Instant at, FenceToken fence) {
      this(id, at, fence, false);
    }
  }

  /**
   * The engine could not confirm this owner's lease in time: renewals failed or did not answer, and
   * the lease it last confirmed ends at {@code confirmedUntil}, less than the engine's {@code
   * leaseSafetyMargin()} away (5 s by default). The owner is told through {@link
   * dev.idempotency.Execution#leaseLost()} before the lease can lapse, so that it starts no call
   * out of the store that a retry could repeat after a takeover. Renewals go on; a fenced write
   * still decides ownership.
   */
  record LeaseUnconfirmed(RecordId id, Instant at, FenceToken fence, Instant confirmedUntil)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public LeaseUnconfirmed {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(confirmedUntil, "confirmedUntil");
    }
  }

  /**
   * The operation ran past the engine's {@code maxOperationTime}: the engine stopped renewing its
   * lease and told the owner through {@link dev.idempotency.Execution#leaseLost()}. Once the lease
   * lapses, a retry or the completer takes the record over and resumes from its last recovery
   * point; the hung owner's late writes are refused by the fence.
   */
  record OperationTimedOut(RecordId id, Instant at, FenceToken fence, Duration ran)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public OperationTimedOut {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(ran, "ran");
    }
  }

  /**
   * The operation ran, but its response could not be stored (larger than the store keeps, or
   * refused by it): the small not-stored marker was stored in its place ({@link
   * dev.idempotency.StoredResponse#notStoredMarker}), so a retry gets the marker and the operation
   * does not run again. The caller of this request got the response itself.
   *
   * @param id the record
   * @param at the engine's time
   * @param fence the owner's fence
   * @param status the status of the response that was not stored
   * @param reason why it was not stored
   */
  record ResponseNotStored(RecordId id, Instant at, FenceToken fence, int status, String reason)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public ResponseNotStored {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The operation ran, but neither its response nor the not-stored marker could be stored before
   * the lease ran short (the store stayed unreachable, or refused both): the record stays in
   * flight, and a retry after the lease runs the operation again unless it left a recovery point.
   * The caller of this request got the response itself. One of the events that can lead to a
   * duplicate side effect: watch its rate.
   *
   * @param id the record
   * @param at the engine's time
   * @param fence the owner's fence
   * @param attempts how many times the completion was tried
   * @param cause the last failure
   */
  record CompletionFailed(RecordId id, Instant at, FenceToken fence, int attempts, String cause)
      implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public CompletionFailed {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(cause, "cause");
    }
  }

  /** The store could not be reached; the engine failed closed and the operation did not run. */
  record StoreUnavailable(RecordId id, Instant at, String cause) implements IdempotencyEvent {
    /**
     * @throws NullPointerException if an argument is null
     */
    public StoreUnavailable {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(cause, "cause");
    }
  }
}
