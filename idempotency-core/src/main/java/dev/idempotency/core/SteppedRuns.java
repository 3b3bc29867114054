package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.internal.Completion;
import dev.idempotency.core.internal.ExecutionImpl;
import dev.idempotency.core.internal.Heartbeats;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Requests of {@link IdempotencyEngine#execute}, whose operation runs in steps between recovery
 * points: each attempt claims the key and, when the claim is won, runs the operation while the
 * {@link Heartbeats} renew its lease and while its response is stored under the fence ({@link
 * Completion}). When the operation threw, or its response is one the {@link StoredResponsePolicy}
 * excludes, the key is released if nothing had committed, else left in flight for the next owner to
 * resume; the {@link Completer} resumes such records here too. Claims not won are answered by the
 * {@link ClaimAnswers}. One per engine; it keeps no state of a request between calls, so
 * thread-safe.
 */
final class SteppedRuns {
  // its warnings are the engine's, as OneTransactionRun's are: one logger to watch for all of them
  private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

  private final KeyStore store;
  private final IdempotencyConfig config;
  private final InstantSource clock;
  private final Heartbeats heartbeats;
  private final ClaimAnswers answers;
  private final Completion completion;
  private final Consumer<IdempotencyEvent> publish;

  SteppedRuns(
      KeyStore store,
      IdempotencyConfig config,
      Heartbeats heartbeats,
      ClaimAnswers answers,
      Consumer<IdempotencyEvent> publish) {
    this.store = store;
    this.config = config;
    this.clock = config.clock();
    this.heartbeats = heartbeats;
    this.answers = answers;
    this.completion = new Completion(store, clock, config.lease(), publish);
    this.publish = publish;
  }

  /**
   * One claim of a request of {@code execute} at {@code now}, and its run when the claim is won.
   */
  ClaimAnswers.Settled attempt(
      RecordId id, Fingerprint fingerprint, Instant now, Operation<? extends Answer> operation)
      throws OperationFailedException {
    Instant leaseStart =
        heartbeats.leaseTime(now); // read before the claim: its lease cannot start earlier
    ClaimOutcome claim;
    try {
      claim = claim(id, fingerprint, now);
    } catch (StoreUnavailableException e) {
      return ClaimAnswers.Settled.outcome(answers.storeUnavailable(id, now, e));
    }
    if (claim instanceof ClaimOutcome.Claimed won) {
      return ClaimAnswers.Settled.outcome(run(id, won, leaseStart, operation));
    }
    return answers.answer(id, now, claim);
  }

  /**
   * Resumes {@code listed}, a record {@link KeyStore#findAbandoned} returned, with {@code
   * operation}: for the {@link Completer}. Runs the operation only when the claim takes over the
   * request that was listed (a takeover whose generation is not newer than the listed fence); a
   * record released and claimed afresh in between, or now another request's, is no work of the
   * resumer's: a fresh claim is released at once, another request's takeover handed back with its
   * lease ended, and nothing runs.
   *
   * @return the outcome, or empty when the record was not the listed one any more
   */
  Optional<Outcome> resume(RecordSnapshot listed, Operation<? extends Answer> operation)
      throws OperationFailedException {
    RecordId id = listed.id();
    Instant now = clock.instant();
    Instant leaseStart = heartbeats.leaseTime(now);
    ClaimOutcome claim;
    try {
      claim = claim(id, listed.fingerprint(), now);
    } catch (StoreUnavailableException e) {
      return Optional.of(answers.storeUnavailable(id, now, e));
    }
    if (!(claim instanceof ClaimOutcome.Claimed won)) {
      return Optional.ofNullable(answers.answer(id, now, claim).outcome());
    }
    if (won.takeover() && !won.generation().isNewerThan(listed.fence())) {
      return Optional.of(run(id, won, leaseStart, operation));
    }
    handBack(id, won, now);
    return Optional.empty();
  }

  private ClaimOutcome claim(RecordId id, Fingerprint fingerprint, Instant now) {
    return store.claim(
        new ClaimRequest(id, fingerprint, now, config.lease(), config.replayWindow()));
  }

  /** Gives up a claim the completer won of a record that was no longer the one it listed. */
  private void handBack(RecordId id, ClaimOutcome.Claimed won, Instant now) {
    try {
      if (won.takeover()) {
        // another request's record, maybe with its recovery point: back to abandoned, unchanged
        store.heartbeat(id, won.fence(), now, Duration.ofMillis(1));
      } else {
        store.release(id, won.fence(), now);
      }
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "completer: could not give back "
              + id
              + ", which was no longer the record it listed; it stays in flight until its lease"
              + " expires",
          e);
    }
  }

  /**
   * Runs {@code operation} under the claim {@code won} of {@code id}, made at {@code claimedAt}.
   *
   * @throws OperationFailedException if the operation threw an exception (its cause); an {@link
   *     Error} it threw is thrown as it is, once the key is released or left in flight
   * @throws LeaseLostException if another owner took the key over while the operation ran or before
   *     its response was stored
   */
  private Outcome run(
      RecordId id,
      ClaimOutcome.Claimed won,
      Instant claimedAt,
      Operation<? extends Answer> operation)
      throws OperationFailedException {
    Instant start = clock.instant();
    publish.accept(
        won.takeover()
            ? new IdempotencyEvent.TakenOver(id, start, won.fence(), won.resumeFrom())
            : new IdempotencyEvent.Claimed(id, start, won.fence()));
    ExecutionImpl execution =
        new ExecutionImpl(store, id, won, clock, config.lease(), claimedAt, heartbeats);
    heartbeats.start(execution);
    Answer response = null;
    Throwable thrown = null;
    try {
      response = operation.run(execution);
    } catch (Throwable t) {
      thrown = t;
    }
    if (thrown != null && !(thrown instanceof Error) && execution.committedResponse().isPresent()) {
      // the completion committed with the last step's writes: that is the request's answer, and
      // what the operation did after it changes nothing
      LOG.log(
          System.Logger.Level.WARNING,
          "the operation of "
              + id
              + " threw after its completion committed; the caller gets the committed answer",
          thrown);
      if (thrown instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      heartbeats.stop(execution);
      return finish(execution, execution.committedSent().orElseThrow());
    }
    if (thrown == null && response != null) {
      try {
        // the lease keeps being renewed while the completion is retried
        return finish(execution, response);
      } finally {
        heartbeats.stop(execution);
      }
    }
    // stop heartbeating before any release (a beat already under way may still finish, and be
    // refused)
    heartbeats.stop(execution);
    if (thrown instanceof LeaseLostException lost) {
      // a fenced write inside the operation (a checkpoint) was refused: another owner has the key
      // now
      publish.accept(new IdempotencyEvent.LeaseLost(id, clock.instant(), won.fence()));
      throw lost;
    }
    if (thrown instanceof Error error) {
      failed(execution, error);
      throw error;
    }
    if (thrown != null) {
      throw failed(execution, thrown);
    }
    if (response == null) {
      throw failed(
          execution, new NullPointerException("the operation returned null instead of a response"));
    }
    return finish(execution, response);
  }

  /**
   * Releases the key if nothing committed, else leaves it in flight; returns the exception to
   * throw.
   */
  private OperationFailedException failed(ExecutionImpl execution, Throwable cause) {
    // A StoreUnavailableException from a fenced write (a checkpoint, a transactional phase's
    // commit) leaves its outcome unknown: the phase may have committed without the engine hearing
    // of it. Releasing would erase that recovery point, so the key stays in flight and the next
    // owner resumes from whatever did commit.
    boolean released =
        execution.committedPoint().isEmpty()
            && execution.committedResponse().isEmpty()
            && !causedByStoreUnavailable(cause)
            && release(execution, "operation threw " + cause.getClass().getName());
    if (!released) {
      execution
          .committedPoint()
          .ifPresent(
              point ->
                  publish.accept(
                      new IdempotencyEvent.LeftInFlight(
                          execution.recordId(), clock.instant(), execution.fence(), point)));
    }
    if (cause instanceof InterruptedException) {
      Thread.currentThread()
          .interrupt(); // after the release: the caller must still see the interrupt
    }
    return new OperationFailedException(execution.recordId(), released, cause);
  }

  private static boolean causedByStoreUnavailable(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StoreUnavailableException) {
        return true;
      }
    }
    return false;
  }

  private Outcome finish(ExecutionImpl execution, Answer answer) {
    RecordId id = execution.recordId();
    boolean resumed = execution.resumeFrom().isPresent();
    Optional<StoredResponse> committed = execution.committedResponse();
    if (committed.isPresent()) {
      // a transactional store already committed the completion together with the business writes:
      // the caller gets what that completion's work answered, whatever the operation returned after
      publish.accept(
          new IdempotencyEvent.Completed(
              id, clock.instant(), execution.fence(), committed.get().status()));
      return new Outcome.Executed(
          execution.committedSent().orElseThrow(), execution.fence(), resumed, true);
    }
    Disposition disposition = Disposition.of(answer, config.storedResponsePolicy());
    String release = disposition.release();
    if (release != null && execution.committedPoint().isEmpty()) {
      heartbeats.stop(execution);
      release(execution, release);
      return new Outcome.Executed(disposition.sent(), execution.fence(), resumed, false);
    }
    StoredResponse toStore = disposition.stored();
    if (toStore == null) {
      // it asked to be released, but a recovery point committed: as after a failure, the key stays
      // in flight at that point, and a retry after the lease or the completer resumes it
      heartbeats.stop(execution);
      publish.accept(
          new IdempotencyEvent.LeftInFlight(
              id, clock.instant(), execution.fence(), execution.committedPoint().orElseThrow()));
      return new Outcome.Executed(disposition.sent(), execution.fence(), resumed, false);
    }
    // the work has run: its answer, or the not-stored marker in its place, is stored under the
    // fence, retried while the lease lasts; the caller gets its response whatever became of it. A
    // run that committed a recovery point is not released (a retry would resume it): a response
    // the policy excludes is stored then.
    Completion.Stored stored = completion.complete(execution, toStore);
    return new Outcome.Executed(
        disposition.sent(), execution.fence(), resumed, stored == Completion.Stored.RESPONSE);
  }

  /**
   * Releases the key; true when it was released, false when the store refused or failed (it stays
   * in flight).
   */
  private boolean release(ExecutionImpl execution, String reason) {
    Instant now = clock.instant();
    try {
      store.release(execution.recordId(), execution.fence(), now);
      publish.accept(
          new IdempotencyEvent.Released(execution.recordId(), now, execution.fence(), reason));
      return true;
    } catch (LeaseLostException e) {
      publish.accept(new IdempotencyEvent.LeaseLost(execution.recordId(), now, execution.fence()));
      return false;
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "could not release "
              + execution.recordId()
              + " after: "
              + reason
              + "; it stays in flight until its lease expires",
          e);
      return false;
    }
  }
}
