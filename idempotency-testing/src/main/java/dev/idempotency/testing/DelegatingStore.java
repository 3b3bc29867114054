package dev.idempotency.testing;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link KeyStore} that forwards every call to another. A test overrides one method to inject a
 * failure (a store that is down, slow or stalled at one step) or to observe the calls, and keeps
 * the real store's behaviour for the rest.
 */
public class DelegatingStore implements KeyStore {
  private final KeyStore delegate;

  /** A store that forwards every call to {@code delegate}. */
  public DelegatingStore(KeyStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    return delegate.claim(request);
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    delegate.heartbeat(id, fence, now, lease);
  }

  @Override
  public Set<RecordId> heartbeatAll(Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    return delegate.heartbeatAll(leases, now, lease);
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
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
  public RecordPage list(RecordQuery query) {
    return delegate.list(query);
  }

  @Override
  public void extendRetention(RecordId id, FenceToken fence, Instant keepUntil, Instant now) {
    delegate.extendRetention(id, fence, keepUntil, now);
  }

  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    return delegate.deleteExpired(now, retention, limit);
  }

  @Override
  public long maxResponseBytes() {
    return delegate.maxResponseBytes();
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return delegate.capabilities();
  }
}
