package dev.idempotency.grpc.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.grpc.IdempotencyErrorReason;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The one place that says how an error of the key store reaches the caller when no answer of the
 * handler can be sent instead: an outage is {@code UNAVAILABLE IDEMPOTENCY_STORE_UNAVAILABLE}
 * (retryable: the key is absent, or in flight for a retry to resume), a refused fence {@code
 * ABORTED IDEMPOTENCY_REQUEST_IN_FLIGHT} (another owner has the key), anything else {@code INTERNAL
 * IDEMPOTENCY_STORE_ERROR} (not retryable). Never {@code UNKNOWN}, never the store's own message,
 * which may name tables, keys or servers; the server's log has it.
 */
final class StoreErrorAnswers {
  private static final System.Logger LOG = System.getLogger(StoreErrorAnswers.class.getName());

  private StoreErrorAnswers() {}

  /** The key store's exception in {@code t}'s causes, {@code t} included; null for none. */
  static @Nullable KeyStoreException inCauses(@Nullable Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof KeyStoreException e) {
        return e;
      }
    }
    return null;
  }

  /**
   * The answer to {@code failure}, an error of the store or the engine, logged here.
   *
   * @param what the call, for the log
   * @param failure what the engine threw, or what the handler let out of a store call
   * @param handlerRan whether the handler had started (and stopped at the failed store call)
   * @param settings the interceptor's, for the delays of the retryable answers
   */
  static Refusals.Refusal answer(
      String what, Throwable failure, boolean handlerRan, GuardSettings settings) {
    KeyStoreException store = inCauses(failure);
    if (store instanceof LeaseLostException) {
      // a fenced write the handler made was refused: another owner has the key now
      return Refusals.of(
          IdempotencyErrorReason.IDEMPOTENCY_REQUEST_IN_FLIGHT,
          "another owner took this idempotency key over while the request ran",
          Map.of(),
          settings.engine().config().inFlightRetryAfter());
    }
    if (store instanceof StoreUnavailableException) {
      LOG.log(
          System.Logger.Level.WARNING,
          what
              + ": the key store is unavailable"
              + (handlerRan ? " at a store call of the handler; the key stays in flight" : ""),
          failure);
      return Refusals.of(
          IdempotencyErrorReason.IDEMPOTENCY_STORE_UNAVAILABLE,
          handlerRan
              ? "the idempotency key store became unavailable while the request ran; a retry with"
                  + " this key resumes it"
              : "the idempotency key store is unavailable; nothing was processed",
          Map.of(),
          settings.storeUnavailableRetryAfter());
    }
    LOG.log(
        System.Logger.Level.ERROR,
        what
            + ": the key store failed"
            + (handlerRan ? " at a store call of the handler" : " before the handler ran")
            + "; callers get INTERNAL "
            + IdempotencyErrorReason.IDEMPOTENCY_STORE_ERROR,
        failure);
    return Refusals.of(
        IdempotencyErrorReason.IDEMPOTENCY_STORE_ERROR,
        handlerRan
            ? "the idempotency key store failed while the request ran"
            : "the idempotency key store failed; nothing was processed",
        Map.of(),
        null);
  }
}
