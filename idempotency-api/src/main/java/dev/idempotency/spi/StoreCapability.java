package dev.idempotency.spi;

/**
 * Optional properties a {@link KeyStore} declares through {@link KeyStore#capabilities()}. The
 * engine and the TCK adapt to them: the TCK proves the rules a capability brings and skips, with
 * the reason, the rules a missing capability rules out.
 */
public enum StoreCapability {
  /**
   * The store judges lease expiry, the replay window, abandonment ({@code findAbandoned}) and
   * retention ({@code deleteExpired}) by its own server's clock (for example the database's {@code
   * now()}), not by the {@code now} the engine passes. Every application instance then agrees on
   * expiry whatever the skew between their clocks. The TCK proves the time rules for such a store
   * with short real leases instead of a controlled clock.
   */
  SERVER_CLOCK,

  /**
   * The store implements {@link TransactionalKeyStore}: it can run the caller's business writes in
   * the same transaction as its own fenced checkpoint or completion.
   */
  TRANSACTIONAL,

  /**
   * The store implements {@link TransactionalKeyStore#claimAndComplete}: the claim, the caller's
   * business writes and the completion in one transaction and one commit, for a request of one step
   * with no call outside that transaction. A store declaring it also declares {@link
   * #TRANSACTIONAL}.
   */
  ONE_TRANSACTION,

  /**
   * Several processes (application instances) can share the store's records; a claim in one process
   * is seen by every other. An in-process store does not have it.
   */
  SHARED,

  /**
   * The store implements {@link KeyStore#list(RecordQuery)}: it lists records by state and lease,
   * in bounded pages, for the people and tools that settle stuck keys.
   */
  LISTING,

  /**
   * The store implements {@link KeyStore#extendRetention}: a person can keep one record past its
   * retention (an investigation, a redrive that waits for a fix) without changing anything a claim
   * reads.
   */
  EXTEND_RETENTION
}
