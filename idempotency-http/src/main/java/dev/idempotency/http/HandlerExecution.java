package dev.idempotency.http;

import dev.idempotency.Answer;
import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.http.internal.StoringRules;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The execution the handler gives the application: the engine's, whose {@link #completeWith} stores
 * the completion by the handler's rules (the allowlisted headers, the redacted body, and the
 * not-stored marker when that body is over {@code maxStoredResponseBytes}, whatever {@link
 * OversizedResponse} says: the business writes commit with it, so releasing the key would let a
 * retry repeat them). The first caller gets what the completion's work answered; a replay its
 * stored form, as for every request.
 */
final class HandlerExecution implements Execution {
  private final Execution engine;
  private final StoringRules rules;

  HandlerExecution(Execution engine, StoringRules rules) {
    this.engine = engine;
    this.rules = rules;
  }

  @Override
  public RecordId recordId() {
    return engine.recordId();
  }

  @Override
  public FenceToken fence() {
    return engine.fence();
  }

  @Override
  public Optional<RecoveryPoint> resumeFrom() {
    return engine.resumeFrom();
  }

  @Override
  public boolean isTakeover() {
    return engine.isTakeover();
  }

  @Override
  public Instant now() {
    return engine.now();
  }

  @Override
  public Duration lease() {
    return engine.lease();
  }

  @Override
  public void checkpoint(RecoveryPoint point) {
    engine.checkpoint(point);
  }

  @Override
  public boolean leaseLost() {
    return engine.leaseLost();
  }

  @Override
  public IdempotencyKey downstreamKey(String purpose) {
    return engine.downstreamKey(purpose);
  }

  @Override
  public <T, R> R checkpoint(
      RecoveryPoint next, Class<T> transactionType, TransactionalWork<T, R> work) throws Exception {
    return engine.checkpoint(next, transactionType, work);
  }

  @Override
  public <T> StoredResponse completeWith(
      Class<T> transactionType, TransactionalWork<T, ? extends Answer> work) throws Exception {
    Objects.requireNonNull(work, "work");
    return engine.completeWith(
        transactionType,
        tx -> {
          Answer answer =
              Objects.requireNonNull(work.run(tx), "the work returned null instead of a response");
          if (answer instanceof Answer.Released) {
            return answer; // refused by the engine, which rolls the writes back
          }
          StoredResponse live = answer.sent();
          StoredResponse stored =
              answer instanceof Answer.StoredAs storedAs ? storedAs.stored() : live;
          // a marker the application stores is kept as it is: the rules would strip its header
          return Answer.storedAs(
              live, stored.notStoredReason().isPresent() ? stored : rules.storedForm(stored));
        });
  }

  @Override
  public String toString() {
    return engine.toString();
  }
}
