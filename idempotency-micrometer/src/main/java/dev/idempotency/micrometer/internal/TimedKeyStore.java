package dev.idempotency.micrometer.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
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
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A store that times each {@link #claim} and passes every call to its delegate unchanged. The
 * delegate's answers, exceptions and capabilities are its own: the decorator decides nothing.
 */
public class TimedKeyStore implements KeyStore {

  /** Receives one claim's duration and its result's name. */
  @FunctionalInterface
  public interface ClaimTimer {
    /**
     * Records one claim.
     *
     * @param nanos how long the claim took
     * @param result one of {@code claimed}, {@code taken_over}, {@code completed}, {@code
     *     in_flight}, {@code mismatch}, {@code unavailable}, {@code error}
     */
    void record(long nanos, String result);
  }

  private final KeyStore delegate;
  private final ClaimTimer timer;

  /** A decorator of {@code delegate} reporting to {@code timer}. */
  public TimedKeyStore(KeyStore delegate, ClaimTimer timer) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.timer = Objects.requireNonNull(timer, "timer");
  }

  /** The store this one passes every call to. */
  public KeyStore delegate() {
    return delegate;
  }

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    long start = System.nanoTime();
    String result = "error";
    try {
      ClaimOutcome outcome = delegate.claim(request);
      result = resultOf(outcome);
      return outcome;
    } catch (StoreUnavailableException e) {
      result = "unavailable";
      throw e;
    } finally {
      timer.record(System.nanoTime() - start, result);
    }
  }

  /** The name of a claim's result, for the timer's tag. */
  static String resultOf(ClaimOutcome outcome) {
    if (outcome instanceof ClaimOutcome.Claimed claimed) {
      return claimed.takeover() ? "taken_over" : "claimed";
    }
    if (outcome instanceof ClaimOutcome.Completed) {
      return "completed";
    }
    if (outcome instanceof ClaimOutcome.InFlight) {
      return "in_flight";
    }
    return "mismatch";
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

  @Override
  public String toString() {
    return delegate.toString();
  }
}
