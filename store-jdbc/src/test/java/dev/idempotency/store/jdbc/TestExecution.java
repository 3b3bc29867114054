package dev.idempotency.store.jdbc;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.TransactionCallbacks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link Execution} for tests: records what the store reported as committed. */
final class TestExecution implements Execution, TransactionCallbacks {
  final KeyStore store;
  final RecordId id;
  final ClaimOutcome.Claimed claimed;
  final Instant now;
  final Duration lease;
  final List<Object> committed = new CopyOnWriteArrayList<>();

  TestExecution(
      KeyStore store, RecordId id, ClaimOutcome.Claimed claimed, Instant now, Duration lease) {
    this.store = store;
    this.id = id;
    this.claimed = claimed;
    this.now = now;
    this.lease = lease;
  }

  @Override
  public RecordId recordId() {
    return id;
  }

  @Override
  public FenceToken fence() {
    return claimed.fence();
  }

  @Override
  public Optional<RecoveryPoint> resumeFrom() {
    return claimed.resumeFrom();
  }

  @Override
  public boolean isTakeover() {
    return claimed.takeover();
  }

  @Override
  public boolean leaseLost() {
    return false; // no heartbeats here: the store's fenced writes report a loss by throwing
  }

  @Override
  public Instant now() {
    return now;
  }

  @Override
  public Duration lease() {
    return lease;
  }

  @Override
  public void checkpoint(RecoveryPoint point) {
    store.checkpoint(id, fence(), point, now, lease);
  }

  @Override
  public IdempotencyKey downstreamKey(String purpose) {
    return IdempotencyKey.of(id.key().value() + "-" + purpose);
  }

  @Override
  public void phaseOpening() {
    // no renewals here to keep away from the phase
  }

  @Override
  public void phaseClosed() {}

  @Override
  public void phaseCommitted(RecoveryPoint point) {
    committed.add(point);
  }

  @Override
  public void completionCommitted(StoredResponse response) {
    committed.add(response);
  }
}
