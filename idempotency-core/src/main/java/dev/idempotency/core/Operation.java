package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.Execution;

/**
 * Stepped work: runs at most once per claim, with recovery points between its steps, and its result
 * is stored for replay. {@link Work#stepped} makes it the work of an {@link
 * IdempotencyEngine#execute} (its result an {@link Answer}) or of an {@link IdempotentCall} (its
 * result the call's type).
 *
 * <p>A multi-step operation checks {@link Execution#resumeFrom()} first and skips the steps a
 * previous owner finished, then records each finished step with {@link Execution#checkpoint} (its
 * overload with a transaction commits the step's writes with it), and may commit its last step's
 * writes with the completion ({@link Execution#completeWith}). Before each call outside the store
 * it checks {@link Execution#leaseLost()} and passes {@link Execution#downstreamKey}.
 *
 * @param <R> the result
 */
@FunctionalInterface
public interface Operation<R> {
  /**
   * Runs the work.
   *
   * @param execution the claimed record, its fence, and where to resume
   * @return the result to store and return, never null
   * @throws Exception when the operation fails without a result: the engine releases the key if no
   *     step committed (a retry runs anew), else leaves it in flight for resumption, and throws
   *     {@link OperationFailedException}
   */
  R run(Execution execution) throws Exception;
}
