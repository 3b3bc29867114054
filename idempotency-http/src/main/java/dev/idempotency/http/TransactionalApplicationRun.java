package dev.idempotency.http;

import dev.idempotency.Answer;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.http.internal.StoringRules;
import java.util.Objects;

/**
 * One request of an {@link EndpointRule#inOneTransaction() endpoint rule in one transaction}: the
 * application runs inside the store's transaction ({@link
 * dev.idempotency.core.Work#inOneTransaction}), and what it returns is stored by the {@link
 * StoringRules}, committed with its statements. Over {@code maxStoredResponseBytes} the not-stored
 * marker is committed whatever {@link OversizedResponse} says: the application's writes commit with
 * it, so releasing the key would let a retry repeat them (as with a completion committed through
 * the request's execution). The engine's stored-response policy judges the application's response,
 * never the marker's 500, as for a stepped request; a response it excludes rolls the whole
 * transaction back. One per request; the engine runs it on the calling thread.
 *
 * <p>The application runs at most once per request. A store may run a transaction's work again
 * after a retryable abort (a serialization failure, a deadlock, a concurrent claim of the key that
 * committed first), but an application behind an HTTP adapter is a filter chain, which containers
 * do not let run twice (Tomcat's chain passes a second call straight to the servlet, skipping the
 * filters that set up security or tenant context): such a request is answered as the store being
 * unavailable (503 with Retry-After), nothing committed, and the client's retry runs it anew or
 * replays what the other claim stored.
 */
final class TransactionalApplicationRun {
  private final StoringRules rules;
  private final byte[] body;
  private final TransactionalDownstream downstream;
  private boolean ran;

  TransactionalApplicationRun(StoringRules rules, byte[] body, TransactionalDownstream downstream) {
    this.rules = rules;
    this.body = body;
    this.downstream = downstream;
  }

  /**
   * Claims, runs the application and completes, in one transaction.
   *
   * @throws ApplicationFailedException if the application threw; everything rolled back
   */
  Outcome execute(IdempotencyEngine engine, RecordId id, Fingerprint fingerprint)
      throws ApplicationFailedException, InterruptedException {
    try {
      return engine.execute(
          id,
          fingerprint,
          Work.inOneTransaction(
              Object.class,
              transaction -> {
                if (ran) {
                  throw new RepeatedRun(); // rolls this transaction back too; answered below
                }
                ran = true;
                StoredResponse live =
                    Objects.requireNonNull(
                        downstream.runInTransaction(body, transaction), "downstream returned null");
                return Answer.storedAs(live, rules.storedForm(live));
              }));
    } catch (OperationFailedException e) {
      if (e.getCause() instanceof RepeatedRun) {
        return new Outcome.StoreUnavailable(
            new StoreUnavailableException(
                "the store aborted the transaction of "
                    + id
                    + " after the application ran (a serialization failure, a deadlock or a"
                    + " concurrent claim of the key) and would run it again; an HTTP application"
                    + " runs once per request, so nothing committed and a retry runs it anew"));
      }
      throw new ApplicationFailedException(
          Objects.requireNonNull(
              e.getCause(), "an OperationFailedException carries what the operation threw"),
          e.keyReleased());
    }
  }

  /** The store asked for a second run of the application: refused, see the class comment. */
  private static final class RepeatedRun extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RepeatedRun() {
      super("the application of an HTTP request runs once", null, false, false);
    }
  }
}
