package dev.idempotency;

/**
 * Business work that runs inside the store's transaction, together with the store's own fenced
 * write: a request run in one transaction, a phase committed with its recovery point ({@link
 * Execution#checkpoint(RecoveryPoint, Class, TransactionalWork)}), or the last phase committed with
 * the completion ({@link Execution#completeWith}).
 *
 * @param <T> the transaction handle, for example {@code java.sql.Connection}
 * @param <R> the work's result
 */
@FunctionalInterface
public interface TransactionalWork<T, R> {
  /**
   * Runs the work on {@code tx}. It must neither commit nor roll back: the store does, together
   * with its own write. The store may run it again in a new transaction after a serialization
   * failure or a deadlock, so it must have no effect outside the transaction.
   *
   * @param tx the transaction handle, valid only during this call
   * @return the work's result
   * @throws Exception anything; the store rolls the transaction back and rethrows it
   */
  R run(T tx) throws Exception;
}
