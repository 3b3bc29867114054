package dev.idempotency.servlet;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import dev.idempotency.spi.StoreCapability;

/** Delegates to a real store and records what the claims returned, so tests can wait for a state, not a time. */
final class ObservedStore implements KeyStore {
  private final KeyStore delegate;
  final AtomicInteger claims = new AtomicInteger();
  final AtomicInteger inFlightClaims = new AtomicInteger();
  final ConcurrentLinkedQueue<ClaimOutcome> outcomes = new ConcurrentLinkedQueue<>();

  ObservedStore(KeyStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    claims.incrementAndGet();
    ClaimOutcome outcome = delegate.claim(request);
    outcomes.add(outcome);
    if (outcome instanceof ClaimOutcome.InFlight) {
      inFlightClaims.incrementAndGet();
    }
    return outcome;
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    delegate.heartbeat(id, fence, now, lease);
  }

  @Override
  public void checkpoint(RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    delegate.checkpoint(id, fence, point, now, lease);
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    delegate.complete(id, fence, response, now);
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    delegate.release(id, fence, now);
  }

  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    return delegate.lookup(id);
  }

  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    return delegate.findAbandoned(now, limit);
  }

  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    return delegate.deleteExpired(now, retention, limit);
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return delegate.capabilities();
  }
}
