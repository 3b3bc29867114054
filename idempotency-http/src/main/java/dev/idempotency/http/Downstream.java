package dev.idempotency.http;

import dev.idempotency.Execution;
import dev.idempotency.StoredResponse;

/**
 * The application behind the handler: runs the request once and returns its complete response. The
 * framework adapter implements it by re-exposing the buffered body to the application and capturing
 * everything it writes (status, every header, the body) instead of sending it.
 */
@FunctionalInterface
public interface Downstream {
  /**
   * Runs the application.
   *
   * @param body the request body the handler read and fingerprinted; the application must see
   *     exactly these bytes
   * @param execution the claimed request's execution, for an application of several steps: where to
   *     resume ({@link Execution#resumeFrom()}), recovery points ({@link Execution#checkpoint}, or
   *     a transactional store's {@code inPhase} with it), keys for calls out ({@link
   *     Execution#downstreamKey}) and whether another owner took the request over ({@link
   *     Execution#leaseLost()}); framework adapters hand it to the application (the servlet filter
   *     as a request attribute)
   * @return the complete response, every header included (the handler decides which ones are
   *     stored)
   * @throws Exception whatever the application threw; the key is then released if nothing committed
   *     (no recovery point), else it stays in flight for a retry to resume, and the handler
   *     rethrows it wrapped in {@link ApplicationFailedException}
   */
  StoredResponse run(byte[] body, Execution execution) throws Exception;
}
