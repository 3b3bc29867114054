package dev.idempotency.http;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The execution the handler gives the application: the engine's, plus what the handler must know of
 * a completion the application commits itself through a transactional store (the stored response,
 * and the response the first caller gets when it went through {@link
 * IdempotencyHttp#completeWith}).
 */
final class HandlerExecution implements Execution {
  private final Execution engine;
  private volatile @Nullable StoredResponse committed;
  private volatile @Nullable StoredResponse answer;

  HandlerExecution(Execution engine) {
    this.engine = engine;
  }

  /** The response a transactional store committed as the completion, if any. */
  Optional<StoredResponse> committed() {
    return Optional.ofNullable(committed);
  }

  /**
   * The response for the first caller of a completion committed through the handler's rules, if
   * any.
   */
  Optional<StoredResponse> answer() {
    return Optional.ofNullable(answer);
  }

  void answer(StoredResponse response) {
    this.answer = response;
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
  public <T, R> R inPhase(
      Class<T> transactionType, RecoveryPoint next, TransactionalWork<T, R> work) throws Exception {
    return engine.inPhase(transactionType, next, work);
  }

  @Override
  public <T> StoredResponse completeWith(
      Class<T> transactionType, TransactionalWork<T, StoredResponse> work) throws Exception {
    StoredResponse response = engine.completeWith(transactionType, work);
    committed = response;
    return response;
  }

  @Override
  public String toString() {
    return engine.toString();
  }
}
