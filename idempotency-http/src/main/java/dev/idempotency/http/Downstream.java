package dev.idempotency.http;

import dev.idempotency.StoredResponse;

/**
 * The application behind the handler: runs the request once and returns its complete response. The framework
 * adapter implements it by re-exposing the buffered body to the application and capturing everything it writes
 * (status, every header, the body) instead of sending it.
 */
@FunctionalInterface
public interface Downstream {
  /**
   * Runs the application.
   *
   * @param body the request body the handler read and fingerprinted; the application must see exactly these bytes
   * @return the complete response, every header included (the handler decides which ones are stored)
   * @throws Exception whatever the application threw; the key is then released (nothing was stored), and the
   *     handler rethrows it wrapped in {@link ApplicationFailedException}
   */
  StoredResponse run(byte[] body) throws Exception;

  /** A downstream that always returns {@code response}; for tests. */
  static Downstream returning(StoredResponse response) {
    return body -> response;
  }
}
