package dev.idempotency.spi;

import dev.idempotency.Execution;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;

/**
 * A {@link KeyStore} that runs the caller's business writes in the same transaction as its own
 * fenced write, so that a key can never record a phase or a result whose business writes rolled
 * back, nor the reverse: the ACID unit AWS requires of an idempotent API. A store implementing it
 * declares {@link StoreCapability#TRANSACTIONAL}.
 *
 * <p>Both methods run {@code work}, then the fenced write, then commit; if the work throws, or the
 * fence is stale (another owner took the record over), the whole transaction rolls back and nothing
 * the work wrote remains. A store may run {@code work} more than once, in a new transaction each
 * time, when the database aborted the previous one for a serialization failure or a deadlock: only
 * the last run's writes commit, and its result is the one returned and stored. The work must
 * therefore have no effects outside the transaction (call external systems between phases, not
 * inside one). Around the transaction they tell the engine what they do through {@link
 * TransactionCallbacks#of(Execution)}: that it opens and closes (closes also when it rolled back),
 * and after the commit what committed (never a transaction that rolled back). An execution without
 * those callbacks, or a null argument, is refused before any work runs. Thread-safe like every
 * store.
 *
 * <p>The numbered rules are section 10 of the TCK's {@code SPEC.md}; the {@code tck} module's
 * {@code TransactionalKeyStoreContract} proves them.
 *
 * @param <T> the transaction handle the work receives, for example {@code java.sql.Connection}
 */
public interface TransactionalKeyStore<T> extends KeyStore {

  /**
   * Runs one phase of a multi-step request: {@code work}, then the checkpoint to {@code next} under
   * the execution's fence, in one transaction. The checkpoint is {@link KeyStore#checkpoint}'s,
   * with the execution's {@code now} and {@code lease}: a takeover after it resumes from {@code
   * next}.
   *
   * @param execution the owner's execution (record, fence, time, lease)
   * @param next the recovery point the phase reaches
   * @param work the phase's business writes
   * @param <R> the work's result
   * @return the work's result, once committed
   * @throws LeaseLostException if the fence is stale; the transaction rolled back
   * @throws StoreUnavailableException if the store cannot be reached; the transaction rolled back
   *     if it began
   * @throws IllegalArgumentException if {@code execution} does not implement {@link
   *     TransactionCallbacks}; no work ran
   * @throws NullPointerException if an argument is null; no work ran
   * @throws Exception whatever {@code work} threw, as it was thrown; the transaction rolled back
   */
  <R> R inPhase(Execution execution, RecoveryPoint next, TransactionalWork<T, R> work)
      throws Exception;

  /**
   * Runs the last phase: {@code work}, which returns the response, then the completion with that
   * response under the execution's fence, in one transaction. The completion is {@link
   * KeyStore#complete}'s, with the execution's {@code now}.
   *
   * @param execution the owner's execution
   * @param work the last phase's business writes, returning the response to store
   * @return the stored response, once committed
   * @throws LeaseLostException if the fence is stale; the transaction rolled back
   * @throws StoreUnavailableException if the store cannot be reached; the transaction rolled back
   *     if it began
   * @throws IllegalArgumentException if {@code execution} does not implement {@link
   *     TransactionCallbacks}; no work ran
   * @throws NullPointerException if an argument is null; no work ran
   * @throws Exception whatever {@code work} threw, as it was thrown; the transaction rolled back
   */
  StoredResponse completeWith(Execution execution, TransactionalWork<T, StoredResponse> work)
      throws Exception;
}
