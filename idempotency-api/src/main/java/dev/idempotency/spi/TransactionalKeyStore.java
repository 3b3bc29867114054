package dev.idempotency.spi;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import java.time.Duration;
import java.time.Instant;

/**
 * A {@link KeyStore} that runs the caller's business writes in the same transaction as its own
 * fenced write, so that a key can never record a phase or a result whose business writes rolled
 * back, nor the reverse: the ACID unit AWS requires of an idempotent API. A store implementing it
 * declares {@link StoreCapability#TRANSACTIONAL}. Applications reach it through the engine ({@code
 * Execution.checkpoint} with a phase's writes, and {@code completeWith}), which renews the lease
 * around each transaction; the store calls nothing back.
 *
 * <p>Both methods run {@code work}, then the fenced write, then commit; if the work throws, or the
 * fence is stale (another owner took the record over), the whole transaction rolls back and nothing
 * the work wrote remains. A store may run {@code work} more than once, in a new transaction each
 * time, when the database aborted the previous one for a serialization failure or a deadlock: only
 * the last run's writes commit, and its result is the one returned and stored. The work must
 * therefore have no effects outside the transaction (call external systems between phases, not
 * inside one). A method returns only once its transaction committed, and a null argument is refused
 * before any work runs. Thread-safe like every store.
 *
 * <p>The numbered rules are section 10 of the TCK's {@code SPEC.md}; the {@code tck} module's
 * {@code TransactionalKeyStoreContract} proves them.
 *
 * @param <T> the transaction handle the work receives, for example {@code java.sql.Connection}
 */
public interface TransactionalKeyStore<T> extends KeyStore {

  /**
   * The type of the transaction handle every work of this store is given: never null, the same on
   * every call.
   */
  Class<T> transactionType();

  /**
   * Runs one phase of a multi-step request: {@code work}, then the checkpoint to {@code next} under
   * {@code fence}, in one transaction. The checkpoint is {@link KeyStore#checkpoint}'s with the
   * same arguments: a takeover after it resumes from {@code next}.
   *
   * @param id the record
   * @param fence the owner's fence
   * @param next the recovery point the phase reaches
   * @param now the engine's time
   * @param lease the lease the checkpoint renews, from {@code now}
   * @param work the phase's business writes
   * @param <R> the work's result
   * @return the work's result, once committed
   * @throws LeaseLostException if the fence is stale; the transaction rolled back
   * @throws StoreUnavailableException if the store cannot be reached; the transaction rolled back
   *     if it began
   * @throws NullPointerException if an argument is null; no work ran
   * @throws Exception whatever {@code work} threw, as it was thrown; the transaction rolled back
   */
  <R> R inPhase(
      RecordId id,
      FenceToken fence,
      RecoveryPoint next,
      Instant now,
      Duration lease,
      TransactionalWork<T, R> work)
      throws Exception;

  /**
   * Runs the last phase: {@code work}, which returns the response, then the completion with that
   * response under {@code fence}, in one transaction. The completion is {@link KeyStore#complete}'s
   * with the same arguments.
   *
   * @param id the record
   * @param fence the owner's fence
   * @param now the engine's time, the completion's {@code completedAt}
   * @param work the last phase's business writes, returning the response to store
   * @return the stored response, once committed
   * @throws LeaseLostException if the fence is stale; the transaction rolled back
   * @throws StoreUnavailableException if the store cannot be reached; the transaction rolled back
   *     if it began
   * @throws KeyStoreException if the response is larger than {@link #maxResponseBytes()}; the
   *     transaction rolled back
   * @throws NullPointerException if an argument is null, or the work returned null
   * @throws Exception whatever {@code work} threw, as it was thrown; the transaction rolled back
   */
  StoredResponse completeWith(
      RecordId id, FenceToken fence, Instant now, TransactionalWork<T, StoredResponse> work)
      throws Exception;

  /**
   * Runs a request of one step in one transaction and one commit: the claim, {@code work} and the
   * completion with the work's response. A store that implements it declares {@link
   * StoreCapability#ONE_TRANSACTION}; the default throws {@link UnsupportedOperationException}.
   *
   * <ol>
   *   <li>The claim is {@link KeyStore#claim}'s decision, made inside the transaction and not
   *       committed: nobody sees the record until the commit ({@code lookup} from elsewhere finds
   *       it as before), and a concurrent claim of the same record waits for the transaction to end
   *       and then decides on what it committed (a replay) or, after a rollback, on what was there.
   *   <li>Claimed: {@code work} runs on the transaction, then the completion with its response
   *       under the claim's fence and the request's {@code now}; all of it commits together, and
   *       {@link OneTransactionOutcome.Committed} says so once the commit returned.
   *   <li>Not claimed (completed, mismatch, in flight under a live lease): {@link
   *       OneTransactionOutcome.NotRun} with the claim's answer; the work does not run and nothing
   *       is written. A wait for another transaction's lock that reaches the store's lock or
   *       statement timeout is answered {@link ClaimOutcome.InFlight}, not an error: that
   *       transaction holds the record.
   *   <li>An in-flight record whose lease expired, of the same request: without a recovery point it
   *       is taken over ({@code Committed} with {@code claim.takeover()}); with one, nothing is
   *       written and the answer is {@link OneTransactionOutcome.NeedsResumption}.
   *   <li>Work that throws rolls everything back, the claim included (the record is as before), and
   *       its exception is rethrown as it was; the store may run the transaction again after a
   *       retryable abort (a serialization failure, a deadlock), the work included, and only the
   *       last run commits. A crash of the caller before the commit rolls everything back: the
   *       retry runs as a first attempt.
   * </ol>
   *
   * There is no lease to renew: nobody else can see the record before it is complete. The work must
   * be short (a concurrent duplicate waits on the record's lock for as long) and call nothing
   * outside the transaction; a request with a foreign call needs the two-commit lifecycle and its
   * recovery points. The numbered rules are 10.9 to 10.13 of the TCK's {@code SPEC.md}.
   *
   * @param request the claim (record, fingerprint, time, lease, replay window); the lease is what
   *     the record would hold if the transaction left it in flight, which it never does
   * @param work the request's business writes, returning its response
   * @return what was committed, or why nothing was
   * @throws StoreUnavailableException if the store cannot be reached; whether the transaction
   *     committed is unknown only when the commit itself failed (a retry then replays or runs anew)
   * @throws UnsupportedOperationException if the store does not declare {@link
   *     StoreCapability#ONE_TRANSACTION}
   * @throws NullPointerException if an argument is null; nothing ran
   * @throws Exception whatever {@code work} threw, as it was thrown; the transaction rolled back
   */
  default OneTransactionOutcome claimAndComplete(ClaimRequest request, OneTransactionWork<T> work)
      throws Exception {
    throw new UnsupportedOperationException(
        getClass().getName()
            + " does not declare StoreCapability.ONE_TRANSACTION: it cannot claim, run the work"
            + " and complete in one transaction; use Execution.checkpoint/completeWith in the"
            + " engine's stepped work instead");
  }
}
