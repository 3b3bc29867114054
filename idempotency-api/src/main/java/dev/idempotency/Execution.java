package dev.idempotency;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The owner's view of one claimed request while its operation runs: which record it owns, under
 * which fence, and where to resume. The engine creates one per successful claim and hands it to the
 * operation.
 *
 * <p>An operation of several phases calls {@link #checkpoint(RecoveryPoint)} after each phase, or
 * its overload that commits the phase's business writes with the recovery point in one transaction
 * of the store's; {@link #completeWith} commits the last phase's writes with the response. Once a
 * phase has committed, a failure of the operation no longer releases the key: the record stays
 * {@link KeyState#IN_FLIGHT} and a retry or the completer resumes it from {@link #resumeFrom()}.
 *
 * <p>Implementations are thread-safe: the operation may hand the execution to other threads, but
 * the calls of one owner should not race each other (a checkpoint racing the completion has no
 * defined order).
 */
public interface Execution {

  /** The record this execution owns. */
  RecordId recordId();

  /** The fence token of this ownership; every write of the owner carries it. */
  FenceToken fence();

  /**
   * The last recovery point a previous owner committed, when this execution resumes a request (a
   * retry after a failure that left it in flight, or a takeover of an expired lease); empty for a
   * fresh request.
   */
  Optional<RecoveryPoint> resumeFrom();

  /** Whether this execution took over an in-flight record whose lease had expired. */
  boolean isTakeover();

  /**
   * The engine's current time, from its clock; stores and operations use it instead of the system
   * clock.
   */
  Instant now();

  /** The lease the engine holds and renews while the operation runs. */
  Duration lease();

  /**
   * Records that the operation finished a phase and reached {@code point}, under this execution's
   * fence, and renews the lease. From now on a failure of the operation leaves the record in flight
   * for resumption.
   *
   * @param point the recovery point reached
   * @throws NullPointerException if {@code point} is null
   * @throws dev.idempotency.LeaseLostException if another owner took the record over (this owner
   *     must stop)
   * @throws dev.idempotency.StoreUnavailableException if the store cannot be reached
   */
  void checkpoint(RecoveryPoint point);

  /**
   * Runs one phase of the operation in one transaction of the store's: {@code work}, then the
   * checkpoint to {@code next} under this execution's fence, committed together. A takeover after
   * it resumes from {@code next}; if the work throws, or another owner took the record over, the
   * whole transaction rolls back and nothing the work wrote remains. The work gets the store's
   * transaction handle ({@code java.sql.Connection} for the JDBC store) and may be run again in a
   * new transaction after a serialization failure or a deadlock: call other systems between phases,
   * never inside one.
   *
   * @param next the recovery point the phase reaches
   * @param transactionType the store's transaction handle, for example {@code Connection.class}
   * @param work the phase's business writes
   * @param <T> the transaction handle
   * @param <R> the work's result
   * @return the work's result, once committed
   * @throws UnsupportedOperationException if the store runs no such transaction, or with another
   *     handle than {@code transactionType}; no work ran
   * @throws NullPointerException if an argument is null; no work ran
   * @throws dev.idempotency.LeaseLostException if another owner took the record over; the
   *     transaction rolled back
   * @throws dev.idempotency.StoreUnavailableException if the store cannot be reached; the
   *     transaction rolled back if it began
   * @throws Exception whatever {@code work} threw, as it was thrown; the transaction rolled back
   */
  <T, R> R checkpoint(RecoveryPoint next, Class<T> transactionType, TransactionalWork<T, R> work)
      throws Exception;

  /**
   * Runs the operation's last phase in one transaction of the store's: {@code work}, which returns
   * the answer, then the completion with the answer's stored form under this execution's fence,
   * committed together. The caller gets the answer's {@link Answer#sent() sent} response, whatever
   * the operation returns afterwards, and the engine keeps the completion as it is (the
   * stored-response policy does not judge it: the work's writes committed with it). As {@link
   * #checkpoint(RecoveryPoint, Class, TransactionalWork)} otherwise.
   *
   * @param transactionType the store's transaction handle, for example {@code Connection.class}
   * @param work the last phase's business writes, returning the answer
   * @param <T> the transaction handle
   * @return the response the caller gets, once committed
   * @throws UnsupportedOperationException if the store runs no such transaction, or with another
   *     handle than {@code transactionType}; no work ran
   * @throws NullPointerException if an argument is null, or the work returned null
   * @throws IllegalArgumentException if the work answered {@link Answer#released}: its writes would
   *     commit while a retry ran the work again; the transaction rolled back
   * @throws dev.idempotency.KeyStoreException if the stored form is larger than the store keeps;
   *     the transaction rolled back
   * @throws Exception as {@link #checkpoint(RecoveryPoint, Class, TransactionalWork)}
   */
  <T> StoredResponse completeWith(
      Class<T> transactionType, TransactionalWork<T, ? extends Answer> work) throws Exception;

  /**
   * Whether this owner must stop before its next side effect outside the store, because it has lost
   * the record or may lose it before the engine can renew the lease:
   *
   * <ul>
   *   <li>a heartbeat or a checkpoint under this fence was refused: another owner took the record
   *       over (this one was paused past its lease, by a GC or a network stall);
   *   <li>the engine could not confirm a renewal in time (the store is slow or down, or its
   *       connection pool starved) and the lease it last confirmed ends within the engine's {@code
   *       leaseSafetyMargin()}: told before the lease can lapse;
   *   <li>the operation ran past the engine's {@code maxOperationTime}: renewals stopped;
   *   <li>the engine was closed.
   * </ul>
   *
   * Once {@code true} it stays {@code true}. An operation checks it before a call to a payment
   * provider, say, and stops (throwing {@link dev.idempotency.LeaseLostException} or returning)
   * when it is {@code true}: a retry or the completer does that work after a takeover.
   *
   * <p>{@code false} is a hint, not a guarantee: a process paused right after the check can still
   * be taken over. Writes to the store are fenced and need no check; a call out must still carry
   * {@link #downstreamKey(String)}, so that a repeat by the next owner is harmless.
   */
  boolean leaseLost();

  /**
   * A downstream idempotency key derived from this request and {@code purpose}, stable across
   * retries and takeovers of the same request: pass it to the system a phase calls out to, and
   * record it in the recovery point before the call, so the resumed phase repeats the call with the
   * same key.
   *
   * <p>It derives from the scope, the key, {@code purpose} and the request's generation (the fence
   * of the claim that began it, which every takeover keeps). A key reused after the replay window
   * ended, or after a release, is a new request and gets a new downstream key, so the downstream
   * system runs it anew instead of answering with the earlier request's result.
   *
   * @param purpose what the call is for, for example {@code "charge"}; 1 to 64 characters
   * @return a key of at most 64 printable ASCII characters, the same for every owner of this
   *     request and purpose
   * @throws IllegalArgumentException if {@code purpose} is empty or longer than 64 characters
   */
  IdempotencyKey downstreamKey(String purpose);
}
