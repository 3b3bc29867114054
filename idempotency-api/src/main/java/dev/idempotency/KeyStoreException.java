package dev.idempotency;

/**
 * The base of every exception a {@link dev.idempotency.spi.KeyStore} throws on purpose. Thrown as
 * itself for failures that are neither the store being unreachable nor a lost lease: a
 * misconfigured or missing schema, a corrupt record. The message says what is wrong and how to fix
 * it.
 */
public class KeyStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message that says what is wrong and how to fix it. */
  public KeyStoreException(String message) {
    super(message);
  }

  /** Creates the exception with a message and the underlying cause. */
  public KeyStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
