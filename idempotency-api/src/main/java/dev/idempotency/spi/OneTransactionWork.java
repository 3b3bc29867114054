package dev.idempotency.spi;

import dev.idempotency.StoredResponse;

/**
 * The business work of a request run by {@link TransactionalKeyStore#claimAndComplete}: it runs
 * inside the transaction that holds the uncommitted claim, and its response is the completion that
 * commits with it.
 *
 * @param <T> the transaction handle, for example {@code java.sql.Connection}
 */
@FunctionalInterface
public interface OneTransactionWork<T> {
  /**
   * Runs the work on {@code tx}. It must neither commit nor roll back, and must call nothing
   * outside the transaction: it may run more than once (each run rolled back but the last), and a
   * crash rolls it back whole.
   *
   * @param tx the transaction handle, valid only during this call
   * @param claim the claim this run holds, uncommitted: its fence and generation
   * @return the response to store and return
   * @throws Exception anything; the store rolls the transaction back and rethrows it
   */
  StoredResponse run(T tx, ClaimOutcome.Claimed claim) throws Exception;
}
