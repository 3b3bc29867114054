package dev.idempotency.http;

import dev.idempotency.Answer;
import dev.idempotency.Execution;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Operation;
import dev.idempotency.http.internal.StoringRules;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One request's stepped run of the application under its claim: the engine's {@link Operation}. Its
 * {@link Answer} sends the application's live response (every header included) and stores the form
 * the {@link StoringRules} make of it: the allowlisted headers and redacted body, or the not-stored
 * marker when that is over {@code maxStoredResponseBytes}, or nothing (the key released) when
 * {@link OversizedResponse#RELEASE_KEY} says so. The engine's stored-response policy judges the
 * live response. The run keeps the live response only for the one case the engine has no answer to
 * return: another owner took the key over before the answer was stored. The engine runs the
 * operation on the calling thread, within {@link IdempotencyEngine#execute}. One per request; not
 * thread-safe.
 */
final class ApplicationRun implements Operation<Answer> {
  // the handler's logger name: one logger configuration covers the whole HTTP contract
  private static final System.Logger LOG = System.getLogger(IdempotencyHttp.class.getName());

  private final StoringRules rules;
  private final OversizedResponse oversizedResponse;
  private final byte[] body;
  private final Downstream downstream;
  private @Nullable StoredResponse live;

  ApplicationRun(
      StoringRules rules, OversizedResponse oversizedResponse, byte[] body, Downstream downstream) {
    this.rules = rules;
    this.oversizedResponse = oversizedResponse;
    this.body = body;
    this.downstream = downstream;
  }

  @Override
  public Answer run(Execution claimed) throws Exception {
    StoredResponse response =
        Objects.requireNonNull(
            downstream.run(body, new HandlerExecution(claimed, rules)), "downstream returned null");
    live = response;
    // a completion the application committed with its last step (execution.completeWith) is kept
    // by the engine as it committed, whatever this returns
    StoredResponse filtered;
    try {
      filtered = rules.filtered(response);
    } catch (RuntimeException e) {
      // the application has run: its answer is not lost to a redactor's failure, nor run again
      LOG.log(
          System.Logger.Level.WARNING,
          "the bodyRedactor threw on the response of "
              + claimed.recordId()
              + "; the not-stored marker is stored in its place",
          e);
      return Answer.storedAs(
          response,
          StoredResponse.notStoredMarker(
              response.status(), "the bodyRedactor threw " + e.getClass().getName()));
    }
    if (rules.fits(filtered)) {
      return Answer.storedAs(response, filtered);
    }
    if (oversizedResponse == OversizedResponse.RELEASE_KEY) {
      return Answer.released(
          response,
          "the response exceeds maxStoredResponseBytes ("
              + filtered.size()
              + " bytes) and oversizedResponse=RELEASE_KEY");
    }
    return Answer.storedAs(response, rules.notStoredMarker(response.status(), filtered));
  }

  /** What the application returned, once it returned. */
  Optional<StoredResponse> live() {
    return Optional.ofNullable(live);
  }
}
