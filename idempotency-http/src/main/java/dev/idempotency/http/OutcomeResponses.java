package dev.idempotency.http;

import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.http.internal.Problems;
import dev.idempotency.http.internal.StatusEndpoint;
import dev.idempotency.http.internal.StoringRules;
import java.util.Objects;

/**
 * The second half of {@link IdempotencyHttp#handle}: runs a request that passed every check (key,
 * scope, body limit) through the engine, and maps what the engine answered to the response of the
 * contract: the application's live response to the first caller, the stored one to a replay, and
 * the refusals (in flight, mismatch, store unavailable). Apart from the handler so that the handler
 * reads a request and this class answers it; the settings stay on the handler, which builds one of
 * these with them. Immutable and thread-safe.
 */
final class OutcomeResponses {
  // the handler's logger name: one logger configuration covers the whole HTTP contract
  private static final System.Logger LOG = System.getLogger(IdempotencyHttp.class.getName());

  private final IdempotencyEngine engine;
  private final StoringRules storingRules;
  private final OversizedResponse oversizedResponse;
  private final Problems problems;
  private final InFlightResponse inFlightResponse;
  private final StatusEndpoint statusEndpoint;
  private final MismatchStatus mismatchStatus;

  OutcomeResponses(
      IdempotencyEngine engine,
      StoringRules storingRules,
      OversizedResponse oversizedResponse,
      Problems problems,
      InFlightResponse inFlightResponse,
      StatusEndpoint statusEndpoint,
      MismatchStatus mismatchStatus) {
    this.engine = engine;
    this.storingRules = storingRules;
    this.oversizedResponse = oversizedResponse;
    this.problems = problems;
    this.inFlightResponse = inFlightResponse;
    this.statusEndpoint = statusEndpoint;
    this.mismatchStatus = mismatchStatus;
  }

  /**
   * Claims {@code id} and runs the application at most once under {@code rule}: in one transaction
   * when the rule says so ({@code handle} has checked that {@code downstream} can), else through an
   * {@link ApplicationRun}.
   */
  HttpResult run(
      HttpRequestView request,
      EndpointRule rule,
      RecordId id,
      Fingerprint fp,
      byte[] body,
      Downstream downstream)
      throws ApplicationFailedException, InterruptedException {
    if (downstream instanceof TransactionalDownstream transactional
        && rule.runsInOneTransaction()) {
      Outcome outcome =
          new TransactionalApplicationRun(storingRules, body, transactional)
              .execute(engine, id, fp);
      // the first caller gets what the application answered, every header included, as in the
      // stepped lifecycle; after a rollback the policy asked for, too
      return outcome instanceof Outcome.Executed executed
          ? new HttpResult.Respond(executed.response(), HttpResult.Disposition.EXECUTED)
          : answer(request, id, outcome);
    }
    return stepped(
        request, id, fp, new ApplicationRun(storingRules, oversizedResponse, body, downstream));
  }

  private HttpResult stepped(
      HttpRequestView request, RecordId id, Fingerprint fp, ApplicationRun run)
      throws ApplicationFailedException, InterruptedException {
    Outcome outcome;
    try {
      outcome = engine.execute(id, fp, Work.stepped(run));
    } catch (OperationFailedException e) {
      throw new ApplicationFailedException(
          Objects.requireNonNull(
              e.getCause(), "an OperationFailedException carries what the operation threw"),
          e.keyReleased());
    } catch (LeaseLostException e) {
      if (run.live().isEmpty()) {
        throw e;
      }
      // The work is done, but another owner took the key over (this owner was paused past its
      // lease) and the result could not be stored. The caller still gets what the application
      // answered.
      LOG.log(System.Logger.Level.WARNING, "result of " + id + " not stored: " + e.getMessage());
      return new HttpResult.Respond(run.live().get(), HttpResult.Disposition.EXECUTED);
    }
    return outcome instanceof Outcome.Executed executed
        ? new HttpResult.Respond(executed.response(), HttpResult.Disposition.EXECUTED)
        : answer(request, id, outcome);
  }

  /**
   * The answer to a request the application did not run for: a replay, or a refusal (in flight,
   * mismatch, store unavailable).
   */
  private HttpResult answer(HttpRequestView request, RecordId id, Outcome outcome) {
    if (outcome instanceof Outcome.Replayed replayed) {
      // the engine's own marker, stored when the store could not keep the response: answered as
      // this binding's marker is
      StoredResponse stored =
          replayed
              .response()
              .notStoredReason()
              .map(problems::notStored)
              .orElse(replayed.response());
      return new HttpResult.Respond(StoringRules.replayed(stored), HttpResult.Disposition.REPLAYED);
    }
    if (outcome instanceof Outcome.InFlightConflict conflict) {
      return IdempotencyHttp.reject(
          inFlightResponse == InFlightResponse.ACCEPTED
              ? statusEndpoint.accepted(request, id.key(), conflict.retryAfter())
              : problems.inFlight(conflict.retryAfter()));
    }
    if (outcome instanceof Outcome.Mismatch mismatch) {
      return IdempotencyHttp.reject(
          problems.keyReused(mismatchStatus.status(), mismatch.existingState()));
    }
    Outcome.StoreUnavailable down = (Outcome.StoreUnavailable) outcome;
    LOG.log(
        System.Logger.Level.WARNING,
        "idempotency store unavailable for " + id + "; answered 503",
        down.cause());
    return IdempotencyHttp.reject(problems.storeUnavailable());
  }
}
