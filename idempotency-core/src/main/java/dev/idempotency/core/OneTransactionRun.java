package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.TransactionalKeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One request of {@link IdempotencyEngine#execute} with {@link Work#inOneTransaction}: each attempt
 * is one call of the store's {@code claimAndComplete}, whose outcome it turns into the engine's,
 * with the events {@link IdempotencyEngine#execute} would publish. The work is wrapped so that the
 * run knows the claim it held (for the events), tells the work's own exception from the store's,
 * and rolls the transaction back when the answer is to be released (the configured {@link
 * StoredResponsePolicy} excludes it, or the work answered {@code Answer.released}). One per
 * request; the engine calls it on one thread.
 *
 * @param <T> the store's transaction handle
 */
final class OneTransactionRun<T> {
  private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

  private final IdempotencyEngine engine;
  private final ClaimAnswers answers;
  private final TransactionalKeyStore<T> store;
  private final RecordId id;
  private final TransactionalWork<T, ? extends Answer> work;
  private final StoredResponsePolicy policy;
  private ClaimOutcome.@Nullable Claimed lastClaim;
  private @Nullable Throwable workThrew;
  // what the caller of the last run gets
  private @Nullable StoredResponse sent;
  // whether the last run committed the not-stored marker in place of its answer
  private boolean markerCommitted;

  OneTransactionRun(
      IdempotencyEngine engine,
      ClaimAnswers answers,
      TransactionalKeyStore<T> store,
      RecordId id,
      TransactionalWork<T, ? extends Answer> work,
      StoredResponsePolicy policy) {
    this.engine = engine;
    this.answers = answers;
    this.store = store;
    this.id = id;
    this.work = work;
    this.policy = policy;
  }

  /**
   * The store as a store of the caller's handle type: the engine holds it as a {@code KeyStore},
   * and the caller names the handle's type in its work; a wrong one fails as the work is called.
   */
  @SuppressWarnings(
      "unchecked") // the caller's T is the store's handle type, or the work's cast fails
  static <T> TransactionalKeyStore<T> typed(TransactionalKeyStore<?> store) {
    return (TransactionalKeyStore<T>) store;
  }

  /** One call of {@code claimAndComplete}: the request settled, or its key is in flight. */
  ClaimAnswers.Settled attempt(ClaimRequest request) throws OperationFailedException {
    Instant now = request.now();
    lastClaim = null;
    workThrew = null;
    sent = null;
    markerCommitted = false;
    OneTransactionOutcome outcome;
    try {
      outcome = store.claimAndComplete(request, this::runWork);
    } catch (NotStored excluded) {
      released(excluded.reason);
      return ClaimAnswers.Settled.outcome(
          new Outcome.Executed(excluded.sent, claim().fence(), false, false));
    } catch (Exception e) {
      return ClaimAnswers.Settled.outcome(failed(now, e));
    }
    if (outcome instanceof OneTransactionOutcome.Committed committed) {
      ClaimOutcome.Claimed won = committed.claim();
      StoredResponse answered = Objects.requireNonNull(sent, "the committed run's answer");
      if (markerCommitted) {
        engine.publish(
            new IdempotencyEvent.ResponseNotStored(
                id,
                clock(),
                won.fence(),
                answered.status(),
                committed.response().notStoredReason().orElse("not stored")));
        return ClaimAnswers.Settled.outcome(
            new Outcome.Executed(answered, won.fence(), false, false));
      }
      engine.publish(
          new IdempotencyEvent.Completed(id, clock(), won.fence(), committed.response().status()));
      return ClaimAnswers.Settled.outcome(new Outcome.Executed(answered, won.fence(), false, true));
    }
    if (outcome instanceof OneTransactionOutcome.NeedsResumption resumable) {
      LOG.log(
          System.Logger.Level.WARNING,
          () ->
              id
                  + " is in flight with an expired lease and the recovery point "
                  + resumable.lastPoint().name()
                  + ", left by a request of several steps; one transaction cannot resume it, so it"
                  + " is answered as in flight until a retry of stepped work, or the completer,"
                  + " resumes it");
      return new ClaimAnswers.Settled(null, new ClaimOutcome.InFlight(Duration.ZERO));
    }
    return answers.answer(id, now, ((OneTransactionOutcome.NotRun) outcome).outcome());
  }

  private StoredResponse runWork(T tx, ClaimOutcome.Claimed claim) throws Exception {
    lastClaim = claim;
    workThrew = null;
    engine.publish(
        claim.takeover()
            ? new IdempotencyEvent.TakenOver(id, clock(), claim.fence(), claim.resumeFrom())
            : new IdempotencyEvent.Claimed(id, clock(), claim.fence()));
    Answer answer;
    try {
      answer = work.run(tx);
    } catch (Exception | Error e) {
      workThrew = e;
      throw e;
    }
    if (answer == null) {
      NullPointerException none =
          new NullPointerException("the work returned null instead of an answer");
      workThrew = none;
      throw none;
    }
    Disposition disposition = Disposition.of(answer, policy);
    String release = disposition.release();
    if (release != null) {
      // rolls the work's writes back with the claim: the key stays absent, as released
      throw new NotStored(disposition.sent(), release);
    }
    StoredResponse answered = disposition.sent();
    sent = answered;
    StoredResponse stored =
        Objects.requireNonNull(disposition.stored(), "an answer that is not released is stored");
    markerCommitted = false;
    if (stored.size() > store.maxResponseBytes()) {
      // the work's writes commit with the small marker: a retry replays it, and runs nothing
      markerCommitted = true;
      return StoredResponse.notStoredMarker(answered.status(), oversizedReason(stored));
    }
    return stored;
  }

  private String oversizedReason(StoredResponse response) {
    return "the response ("
        + response.size()
        + " bytes) is larger than the store keeps ("
        + store.maxResponseBytes()
        + " bytes)";
  }

  /** What a call that threw comes to: the work's failure, or the store's. */
  private Outcome failed(Instant now, Exception e) throws OperationFailedException {
    if (e == workThrew) {
      released("the work threw " + e.getClass().getName());
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new OperationFailedException(id, true, e);
    }
    if (e instanceof StoreUnavailableException down) {
      // the claim, or the commit, failed: nothing committed, or (a failed commit) everything did,
      // and a retry replays it
      return answers.storeUnavailable(id, now, down);
    }
    if (e instanceof LeaseLostException lost) {
      // the store broke its promise: no other owner can see the record this transaction claimed
      engine.publish(new IdempotencyEvent.LeaseLost(id, clock(), lost.fence()));
      throw lost;
    }
    if (e instanceof RuntimeException runtime) {
      throw runtime;
    }
    // a store's own failures are unchecked: a checked exception is the application's, raised where
    // its writes commit (a deferred constraint of its tables), and the transaction rolled back
    released("the commit of the work's writes threw " + e.getClass().getName());
    throw new OperationFailedException(id, true, e);
  }

  /** The claim of the run that ended; the transaction that held it rolled back. */
  private void released(String reason) {
    ClaimOutcome.Claimed claim = lastClaim;
    if (claim != null) {
      engine.publish(
          new IdempotencyEvent.Released(
              id, clock(), claim.fence(), reason + "; the transaction rolled back"));
    }
  }

  private ClaimOutcome.Claimed claim() {
    return Objects.requireNonNull(lastClaim, "a response was judged, so a claim was won");
  }

  private Instant clock() {
    return engine.config().clock().instant();
  }

  /**
   * An answer to release (the policy excludes it, or it asked to be): thrown out of the work so
   * that the store rolls the transaction back, and caught by the run, which returns it unstored.
   */
  private static final class NotStored extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient StoredResponse sent;
    private final String reason;

    NotStored(StoredResponse sent, String reason) {
      super(null, null, false, false);
      this.sent = sent;
      this.reason = reason;
    }
  }
}
