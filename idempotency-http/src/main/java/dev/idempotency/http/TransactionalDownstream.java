package dev.idempotency.http;

import dev.idempotency.StoredResponse;

/**
 * An application behind the handler that can also run inside the store's transaction, for the
 * requests of an {@link EndpointRule#inOneTransaction() endpoint rule in one transaction}. An
 * adapter that serves such rules passes one to {@link IdempotencyHttp#handle}; a plain {@link
 * Downstream} is refused there with an {@link IllegalStateException} before anything is read or
 * claimed.
 */
public interface TransactionalDownstream extends Downstream {
  /**
   * Runs the application inside the transaction that holds the request's claim: the application's
   * statements on {@code transaction} commit with the claim and the completion, after this returns,
   * or roll back with them if it throws.
   *
   * @param body the request body the handler read and fingerprinted; the application must see
   *     exactly these bytes
   * @param transaction the store's open transaction (for the JDBC store a {@code
   *     java.sql.Connection} with auto-commit off); the application runs its statements on it and
   *     neither commits, rolls back nor closes it. Framework adapters hand it to the application
   *     (the servlet filter as a request attribute)
   * @return the complete response, every header included (the handler decides which ones are
   *     stored); the client receives it only after the commit
   * @throws Exception whatever the application threw; the transaction rolls back, the claim
   *     included, so the key stays absent, and the handler rethrows it wrapped in {@link
   *     ApplicationFailedException}. Called at most once per request: when the store would run the
   *     work again after a retryable abort, the handler answers the request as the store being
   *     unavailable (503) instead, nothing committed
   */
  StoredResponse runInTransaction(byte[] body, Object transaction) throws Exception;
}
