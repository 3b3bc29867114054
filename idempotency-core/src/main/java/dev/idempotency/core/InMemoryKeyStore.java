package dev.idempotency.core;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StateTransition;
import dev.idempotency.StateTransition.TransitionCause;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link KeyStore} in this process's memory: the reference store for tests and for single-instance services
 * that accept losing their records on restart.
 *
 * <p>Each record is an immutable value in a {@link ConcurrentHashMap}. Reads ({@link #lookup}, and a claim that
 * replays a completed record) take no lock; every change goes through {@code ConcurrentHashMap.compute}, which
 * runs the decision and the write as one atomic step for that key (it locks only the key's bin), so a claim is
 * never check-then-insert. Fence tokens come from one counter for the whole store, which makes them strictly
 * increasing per key even after a record was released or purged.
 *
 * <p>Memory is bounded by the reaper: {@link #deleteExpired} removes records past retention. Records do not
 * survive the process, and the store is not {@link dev.idempotency.spi.StoreCapability#SHARED shared}: two
 * instances of a service each get their own.
 *
 * <p>Thread-safe.
 */
public final class InMemoryKeyStore implements KeyStore {

  /** One record; replaced whole on every change, never mutated. */
  private record Rec(
      KeyState state,
      Fingerprint fingerprint,
      FenceToken fence,
      Instant leaseExpiresAt,
      Optional<RecoveryPoint> recoveryPoint,
      Optional<StoredResponse> response,
      Optional<Instant> completedAt) {

    static Rec inFlight(Fingerprint fp, FenceToken fence, Instant leaseExpiresAt, Optional<RecoveryPoint> point) {
      return new Rec(KeyState.IN_FLIGHT, fp, fence, leaseExpiresAt, point, Optional.empty(), Optional.empty());
    }

    /** Whether a claim at {@code now} must treat this record as absent (a completed record past its window). */
    boolean countsAsAbsent(Instant now, Duration replayWindow) {
      return state == KeyState.COMPLETE && !now.isBefore(completedAt.orElseThrow().plus(replayWindow));
    }

    Rec to(StateTransition t, Instant lease, Optional<RecoveryPoint> point, Optional<StoredResponse> response,
        Optional<Instant> completedAt) {
      StateTransition.of(state, t.to(), t.cause());
      return new Rec(t.to(), fingerprint, fence, lease, point, response, completedAt);
    }
  }

  private final ConcurrentHashMap<RecordId, Rec> records = new ConcurrentHashMap<>();
  private final AtomicLong fences = new AtomicLong();

  /** Creates an empty store. */
  public InMemoryKeyStore() {}

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    RecordId id = request.id();
    Instant now = request.now();
    // Fast path without a lock: a replay of a completed record is the common retry, and completed records never
    // change while they count (they can only be removed, or replaced once they count as absent).
    Rec seen = records.get(id);
    if (seen != null && seen.state == KeyState.COMPLETE && !seen.countsAsAbsent(now, request.replayWindow())) {
      return seen.fingerprint.equals(request.fingerprint())
          ? new ClaimOutcome.Completed(seen.response.orElseThrow(), seen.completedAt.orElseThrow())
          : new ClaimOutcome.Mismatch(KeyState.COMPLETE);
    }
    ClaimOutcome[] outcome = new ClaimOutcome[1];
    records.compute(id, (key, current) -> {
      Instant leaseEnd = now.plus(request.lease());
      if (current == null || current.countsAsAbsent(now, request.replayWindow())) {
        StateTransition.of(KeyState.ABSENT, KeyState.IN_FLIGHT, TransitionCause.CLAIM);
        FenceToken fence = nextFence();
        outcome[0] = new ClaimOutcome.Claimed(fence, Optional.empty(), false);
        return Rec.inFlight(request.fingerprint(), fence, leaseEnd, Optional.empty());
      }
      if (!current.fingerprint.equals(request.fingerprint())) {
        outcome[0] = new ClaimOutcome.Mismatch(current.state);
        return current;
      }
      if (current.state == KeyState.COMPLETE) {
        outcome[0] = new ClaimOutcome.Completed(current.response.orElseThrow(), current.completedAt.orElseThrow());
        return current;
      }
      if (now.isBefore(current.leaseExpiresAt)) {
        outcome[0] = new ClaimOutcome.InFlight(Duration.between(now, current.leaseExpiresAt));
        return current;
      }
      StateTransition.of(KeyState.IN_FLIGHT, KeyState.IN_FLIGHT, TransitionCause.CLAIM);
      FenceToken fence = nextFence();
      outcome[0] = new ClaimOutcome.Claimed(fence, current.recoveryPoint, true);
      return Rec.inFlight(current.fingerprint, fence, leaseEnd, current.recoveryPoint);
    });
    return outcome[0];
  }

  private FenceToken nextFence() {
    return FenceToken.of(fences.incrementAndGet());
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Objects.requireNonNull(now, "now");
    requirePositive(lease, "lease");
    Instant leaseEnd = now.plus(lease);
    fencedUpdate(id, fence, StateTransition.HEARTBEAT,
        r -> r.to(StateTransition.HEARTBEAT, leaseEnd, r.recoveryPoint, r.response, r.completedAt));
  }

  @Override
  public void checkpoint(RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(point, "point");
    Objects.requireNonNull(now, "now");
    requirePositive(lease, "lease");
    Instant leaseEnd = now.plus(lease);
    fencedUpdate(id, fence, StateTransition.CHECKPOINT,
        r -> r.to(StateTransition.CHECKPOINT, leaseEnd, Optional.of(point), r.response, r.completedAt));
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(now, "now");
    fencedUpdate(id, fence, StateTransition.COMPLETE,
        r -> r.to(StateTransition.COMPLETE, r.leaseExpiresAt, r.recoveryPoint, Optional.of(response),
            Optional.of(now)));
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(now, "now");
    fencedUpdate(id, fence, StateTransition.RELEASE, r -> null);
  }

  /**
   * Applies {@code change} to the record if {@code fence} is its current token and it is in flight; a
   * {@code null} result removes the record. Throws {@link LeaseLostException} otherwise, changing nothing.
   */
  private void fencedUpdate(RecordId id, FenceToken fence, StateTransition transition,
      java.util.function.UnaryOperator<Rec> change) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    String[] refusal = new String[1];
    records.compute(id, (key, current) -> {
      if (current == null) {
        refusal[0] = "the record is absent";
        return null;
      }
      if (!current.fence.equals(fence)) {
        refusal[0] = "the current fence is " + current.fence;
        return current;
      }
      if (current.state != transition.from()) {
        refusal[0] = "the record is " + current.state;
        return current;
      }
      return change.apply(current);
    });
    if (refusal[0] != null) {
      throw new LeaseLostException(id, fence, refusal[0]);
    }
  }

  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    Rec r = records.get(id);
    return r == null ? Optional.empty() : Optional.of(snapshot(id, r));
  }

  private static RecordSnapshot snapshot(RecordId id, Rec r) {
    return new RecordSnapshot(id, r.state, r.fingerprint, r.fence,
        r.state == KeyState.IN_FLIGHT ? Optional.of(r.leaseExpiresAt) : Optional.empty(),
        r.recoveryPoint, r.response, r.completedAt);
  }

  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    requirePositive(limit, "limit");
    List<RecordSnapshot> found = new ArrayList<>();
    for (Map.Entry<RecordId, Rec> e : records.entrySet()) {
      Rec r = e.getValue();
      if (r.state == KeyState.IN_FLIGHT && !now.isBefore(r.leaseExpiresAt)) {
        found.add(snapshot(e.getKey(), r));
      }
    }
    found.sort(Comparator.comparing(s -> s.leaseExpiresAt().orElseThrow()));
    return found.size() <= limit ? found : List.copyOf(found.subList(0, limit));
  }

  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    Objects.requireNonNull(now, "now");
    requirePositive(retention, "retention");
    requirePositive(limit, "limit");
    Instant cutoff = now.minus(retention);
    int deleted = 0;
    for (Map.Entry<RecordId, Rec> e : records.entrySet()) {
      if (deleted >= limit) {
        break;
      }
      Rec r = e.getValue();
      boolean expired = r.state == KeyState.COMPLETE
          ? !r.completedAt.orElseThrow().isAfter(cutoff)
          : !r.leaseExpiresAt.isAfter(cutoff);
      // remove(key, value) deletes only the exact record judged expired, never one that changed meanwhile
      if (expired && records.remove(e.getKey(), r)) {
        StateTransition.of(r.state, KeyState.ABSENT, TransitionCause.PURGE);
        deleted++;
      }
    }
    return deleted;
  }

  /** The number of records held, expired ones included until the reaper removes them. */
  public int size() {
    return records.size();
  }

  private static void requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + d);
    }
  }

  private static void requirePositive(int n, String name) {
    if (n <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + n);
    }
  }
}
