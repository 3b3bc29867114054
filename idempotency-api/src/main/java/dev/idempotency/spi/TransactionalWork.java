package dev.idempotency.spi;

/**
 * Business work that runs inside a {@link TransactionalKeyStore}'s transaction.
 *
 * @param <T> the transaction handle, for example {@code java.sql.Connection}
 * @param <R> the work's result
 */
@FunctionalInterface
public interface TransactionalWork<T, R> {
  /**
   * Runs the work on {@code tx}. It must neither commit nor roll back: the store does, together
   * with its own write.
   *
   * @param tx the transaction handle, valid only during this call
   * @return the work's result
   * @throws Exception anything; the store rolls the transaction back and rethrows it
   */
  R run(T tx) throws Exception;
}
