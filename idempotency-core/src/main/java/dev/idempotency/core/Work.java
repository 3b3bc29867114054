package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.StoreCapability;

/**
 * The work an idempotency key guards, in one of its two lifecycles: the one argument of {@link
 * IdempotencyEngine#execute} and {@link IdempotentCall#run}.
 *
 * <table>
 *   <caption>Which lifecycle, when</caption>
 *   <tr><th>work</th><th>for</th><th>what a crash leaves</th></tr>
 *   <tr><td>{@link #inOneTransaction}</td><td>work whose only effects are writes in the store's
 *       database: the claim, the writes and the stored answer commit together, once</td>
 *       <td>nothing: the transaction rolls back and a retry runs as a first attempt</td></tr>
 *   <tr><td>{@link #stepped}</td><td>work that calls outside the database (a payment provider, a
 *       queue): the claim commits first, then each step with its recovery point, then the
 *       answer</td><td>the key in flight: after the lease a retry or the {@link Completer} resumes
 *       from the last recovery point, calling out again with the same {@code downstreamKey}</td></tr>
 * </table>
 *
 * <p>One transaction is the safe choice wherever it fits: nothing is lost between the work's commit
 * and the completion, because they are one commit. It hands the work no {@link
 * dev.idempotency.Execution}, so work in it cannot ask for a downstream key that a rollback would
 * lose. On a store that cannot claim inside the work's transaction (it declares {@link
 * StoreCapability#TRANSACTIONAL} but not {@link StoreCapability#ONE_TRANSACTION}) the claim commits
 * first, and the writes commit with the completion; on a store with neither, {@code execute}
 * refuses the work before claiming.
 *
 * @param <R> the result: an {@link Answer} for the engine, the call's type for an {@link
 *     IdempotentCall}
 */
public sealed interface Work<R> permits SteppedWork, InTransactionWork {

  /**
   * Stepped work: runs under a committed claim with a renewed lease, and may record recovery points
   * and call outside the store.
   *
   * @throws NullPointerException if {@code operation} is null
   */
  static <R> Work<R> stepped(Operation<R> operation) {
    return new SteppedWork<>(operation);
  }

  /**
   * Work in one transaction of the store's with the claim and the completion: {@code work} runs on
   * the store's transaction handle, must neither commit nor roll back, must call nothing outside
   * the transaction, and may run again after a retryable abort (a serialization failure, a
   * deadlock).
   *
   * @param transactionType the store's transaction handle, {@code java.sql.Connection.class} for
   *     the JDBC store
   * @param work the business writes, returning the result
   * @param <T> the transaction handle
   * @throws NullPointerException if an argument is null
   */
  static <T, R> Work<R> inOneTransaction(Class<T> transactionType, TransactionalWork<T, R> work) {
    return new InTransactionWork<>(transactionType, work);
  }
}
