package dev.idempotency.http;

import dev.idempotency.Execution;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Operation;
import dev.idempotency.http.internal.StoringRules;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One request's run of the application under its claim: the engine's {@link Operation}. The engine
 * takes one response from an operation, the one to store; the handler also needs what the engine
 * does not keep, so the run holds it for the handler to read once the engine returned: the live
 * response (the caller gets it, every header included), the execution handed to the application,
 * and why a response was not stored. The engine runs the operation on the calling thread, within
 * {@link IdempotencyEngine#execute}. One per request; not thread-safe.
 */
final class ApplicationRun implements Operation {
  private final IdempotencyEngine engine;
  private final StoringRules rules;
  private final OversizedResponse oversizedResponse;
  private final byte[] body;
  private final Downstream downstream;
  private @Nullable HandlerExecution execution;
  private @Nullable StoredResponse live;
  private @Nullable String notStoredReason;

  ApplicationRun(
      IdempotencyEngine engine,
      StoringRules rules,
      OversizedResponse oversizedResponse,
      byte[] body,
      Downstream downstream) {
    this.engine = engine;
    this.rules = rules;
    this.oversizedResponse = oversizedResponse;
    this.body = body;
    this.downstream = downstream;
  }

  /**
   * Runs the application and returns what the engine stores: the completion the application
   * committed itself, the response by the {@link StoringRules}, or the not-stored marker. The
   * stored-response policy judges the application's status here; the engine stores a marker as it
   * is, whatever its policy says of the marker's own 500.
   *
   * @throws ResponseNotStored when the response is too large and may not be replaced by the marker,
   *     so that the engine releases the key (it does so only for an operation that ends without a
   *     response to store)
   */
  @Override
  public StoredResponse run(Execution claimed) throws Exception {
    execution = new HandlerExecution(claimed);
    live = Objects.requireNonNull(downstream.run(body, execution), "downstream returned null");
    // a completion the application committed itself is the stored response: the engine keeps it
    Optional<StoredResponse> committed = execution.committed();
    if (committed.isPresent()) {
      return committed.get();
    }
    StoredResponse filtered = rules.filtered(live);
    if (rules.fits(filtered)) {
      return filtered;
    }
    if (oversizedResponse == OversizedResponse.RELEASE_KEY) {
      notStoredReason = "oversizedResponse=RELEASE_KEY";
    } else if (!engine.config().storedResponsePolicy().shouldStore(live)) {
      notStoredReason = "storedResponsePolicy excludes status " + live.status();
    }
    if (notStoredReason != null) {
      throw new ResponseNotStored();
    }
    // the engine stores a returned marker as it is (its policy judged the live response, above)
    return rules.notStoredMarker(live.status(), filtered);
  }

  /** What the application returned, once it returned. */
  Optional<StoredResponse> live() {
    return Optional.ofNullable(live);
  }

  /** The execution handed to the application, once the key was claimed. */
  Optional<HandlerExecution> execution() {
    return Optional.ofNullable(execution);
  }

  /**
   * Why the live response is not stored and its key is to be released; empty when it is stored or
   * failed to be.
   */
  Optional<String> notStoredReason() {
    return Optional.ofNullable(notStoredReason);
  }

  /**
   * The end of a run whose response is not stored. It carries nothing: the handler reads the reason
   * from the run, and the engine, seeing the operation end without a response, releases the key.
   */
  static final class ResponseNotStored extends Exception {
    private static final long serialVersionUID = 1L;

    ResponseNotStored() {
      super("the response exceeds maxStoredResponseBytes and is not stored", null, false, false);
    }
  }
}
