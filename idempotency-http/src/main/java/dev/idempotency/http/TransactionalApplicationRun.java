package dev.idempotency.http;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.StoredResponsePolicy;
import dev.idempotency.http.internal.StoringRules;
import dev.idempotency.spi.StoreUnavailableException;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One request of an {@link EndpointRule#inOneTransaction() endpoint rule in one transaction}: the
 * application runs inside the store's transaction ({@link
 * IdempotencyEngine#executeInOneTransaction}), and what it returns is stored by the {@link
 * StoringRules}, committed with its statements. Over {@code maxStoredResponseBytes} the not-stored
 * marker is committed whatever {@link OversizedResponse} says: the application's writes commit with
 * it, so releasing the key would let a retry repeat them (as with {@link
 * IdempotencyHttp#completeWith}). The engine's stored-response policy judges the application's
 * response, never the marker's 500, as for a request of the default lifecycle; a response it
 * excludes rolls the whole transaction back. One per request; the engine runs it on the calling
 * thread.
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
  private final StoredResponsePolicy policy;
  private final byte[] body;
  private final TransactionalDownstream downstream;
  private @Nullable StoredResponse live;
  private boolean ran;

  TransactionalApplicationRun(
      StoringRules rules,
      StoredResponsePolicy policy,
      byte[] body,
      TransactionalDownstream downstream) {
    this.rules = rules;
    this.policy = policy;
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
      return engine.executeInOneTransaction(
          id,
          fingerprint,
          (Object transaction) -> {
            if (ran) {
              throw new RepeatedRun(); // rolls this transaction back too; answered below
            }
            ran = true;
            live =
                Objects.requireNonNull(
                    downstream.runInTransaction(body, transaction), "downstream returned null");
            return rules.storedForm(live);
          },
          stored -> policy.shouldStore(Objects.requireNonNull(live, "judged after the run")));
    } catch (OperationFailedException e) {
      if (e.getCause() instanceof RepeatedRun) {
        live = null; // the run that answered rolled back: its response is no answer
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

  /**
   * What the application returned in the run that ended the request: the first caller's answer,
   * every header included, once it committed (or rolled back because the policy excluded it).
   */
  Optional<StoredResponse> live() {
    return Optional.ofNullable(live);
  }
}
