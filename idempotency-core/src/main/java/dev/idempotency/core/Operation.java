package dev.idempotency.core;

import dev.idempotency.Execution;
import dev.idempotency.StoredResponse;

/**
 * The work an idempotency key guards: runs at most once per claim, and its result is stored for
 * replay.
 *
 * <p>A multi-step operation checks {@link Execution#resumeFrom()} first and skips the phases a
 * previous owner finished, then records each finished phase with {@link Execution#checkpoint} (or
 * {@link Execution#inPhase}, which commits the phase's writes with it).
 */
@FunctionalInterface
public interface Operation {
  /**
   * Runs the work.
   *
   * @param execution the claimed record, its fence, and where to resume
   * @return the result to store and return; every response the operation returns, failures
   *     included, is stored unless the {@link StoredResponsePolicy} excludes it
   * @throws Exception when the operation fails without a response: the engine releases the key if
   *     no phase committed (a retry runs anew), else leaves it in flight for resumption, and throws
   *     {@link OperationFailedException}
   */
  StoredResponse run(Execution execution) throws Exception;
}
