package dev.idempotency;

/**
 * The store could not be reached or did not answer in time (connection refused, timeout, failover
 * in progress). The operation's outcome is unknown to the store's caller only for writes; for a
 * claim it means nothing was decided, and the engine fails closed: the operation does not run, and
 * the HTTP layer answers {@code 503}.
 */
public class StoreUnavailableException extends KeyStoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message naming the store and what failed. */
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates the exception with a message naming the store and what failed. */
  public StoreUnavailableException(String message) {
    super(message);
  }
}
