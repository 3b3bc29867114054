package dev.idempotency.core;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.internal.StateTransition;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.PageCursor;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A {@link KeyStore} in this process's memory: the reference store for tests and for
 * single-instance services that accept losing their records on restart.
 *
 * <p>Each record is an immutable value in a {@link ConcurrentHashMap}. Reads ({@link #lookup}, and
 * a claim that replays a completed record) are plain map reads. Every change is one conditional map
 * operation ({@code computeIfAbsent}, {@code replace(key, expected, new)}, {@code remove(key,
 * expected)}) on the record the decision was made from, retried on what is there now when another
 * thread got in first: a claim is never check-then-insert. Fence tokens come from one counter for
 * the whole store, drawn either inside {@code computeIfAbsent} (so under the map's per-bin lock, at
 * the instant of insertion) or just before a {@code replace} of the exact record read, which makes
 * them strictly increasing per key even after a record was released or purged.
 *
 * <p>Memory is bounded by the reaper: {@link #deleteExpired} removes records past retention.
 * Records do not survive the process, and the store is not {@link
 * dev.idempotency.spi.StoreCapability#SHARED shared}: two instances of a service each get their
 * own.
 *
 * <p>Thread-safe.
 */
public final class InMemoryKeyStore implements KeyStore {

  /**
   * One record; replaced whole on every change, never mutated. Compared by identity: a conditional
   * replace or remove succeeds only if the record is still the very one the decision was made on.
   */
  private static final class Rec {
    final KeyState state;
    final Fingerprint fingerprint;
    final FenceToken fence;
    final FenceToken
        generation; // the fence of the claim that began this request; kept across takeovers
    final Instant leaseExpiresAt;
    final @Nullable RecoveryPoint recoveryPoint; // null until a checkpoint
    final @Nullable StoredResponse response; // null unless COMPLETE
    final @Nullable Instant completedAt; // null unless COMPLETE
    final @Nullable Instant keepUntil; // null unless a person extended the retention

    /**
     * The record a claim installs for a new request: in flight under {@code fence}, its own
     * generation.
     */
    static Rec fresh(ClaimRequest request, FenceToken fence) {
      return new Rec(
          KeyState.IN_FLIGHT,
          request.fingerprint(),
          fence,
          fence,
          request.now().plus(request.lease()),
          null,
          null,
          null,
          null);
    }

    Rec(
        KeyState state,
        Fingerprint fingerprint,
        FenceToken fence,
        FenceToken generation,
        Instant leaseExpiresAt,
        @Nullable RecoveryPoint recoveryPoint,
        @Nullable StoredResponse response,
        @Nullable Instant completedAt,
        @Nullable Instant keepUntil) {
      this.state = state;
      this.fingerprint = fingerprint;
      this.fence = fence;
      this.generation = generation;
      this.leaseExpiresAt = leaseExpiresAt;
      this.recoveryPoint = recoveryPoint;
      this.response = response;
      this.completedAt = completedAt;
      this.keepUntil = keepUntil;
    }

    /** This record, kept at least until {@code until} (or later, if it already was). */
    Rec keptUntil(Instant until) {
      Instant kept = keepUntil != null && keepUntil.isAfter(until) ? keepUntil : until;
      return new Rec(
          state,
          fingerprint,
          fence,
          generation,
          leaseExpiresAt,
          recoveryPoint,
          response,
          completedAt,
          kept);
    }

    /**
     * Whether a claim at {@code now} must treat this record as absent (a completed record past its
     * window).
     */
    boolean countsAsAbsent(Instant now, Duration replayWindow) {
      return state == KeyState.COMPLETE && !now.isBefore(completedAt().plus(replayWindow));
    }

    /** When a COMPLETE record completed. */
    Instant completedAt() {
      return Objects.requireNonNull(completedAt, "a COMPLETE record has its completion time");
    }

    /** The response of a COMPLETE record. */
    StoredResponse response() {
      return Objects.requireNonNull(response, "a COMPLETE record has its response");
    }
  }

  private static final Comparator<RecordId> RECORD_ORDER =
      Comparator.comparing((RecordId id) -> id.scope().value())
          .thenComparing(id -> id.key().value());

  private static final Set<StoreCapability> CAPABILITIES =
      Set.of(StoreCapability.LISTING, StoreCapability.EXTEND_RETENTION);

  private final ConcurrentHashMap<RecordId, Rec> records = new ConcurrentHashMap<>();
  private final AtomicLong fences = new AtomicLong();

  /** Creates an empty store. */
  public InMemoryKeyStore() {}

  /*
   * Every change is one conditional map operation (computeIfAbsent, replace(key, expected, new),
   * remove(key, expected)) on a decision made from the record read just before; when another thread changed the
   * record in between, the operation fails and the decision is made again on what is there now. No check-then-act
   * can slip through. A replace cannot suffer ABA: every record is a new object, so the one read is never back.
   */
  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    RecordId id = request.id();
    Instant now = request.now();
    // the lease's end is computed only where a claim wins: replays, in-flight answers and
    // mismatches need none
    Rec current = records.get(id);
    while (true) {
      if (current == null) {
        // The fence is drawn inside computeIfAbsent, at the moment the record is installed: a fence
        // drawn before the install could be overtaken by a claim that draws a later fence, installs
        // and releases its record in between, and fences would then not grow (rule 3.1). A claim
        // whose function did not run sees someone else's record and decides again on it.
        Rec[] mine = new Rec[1];
        current =
            records.computeIfAbsent(
                id,
                k -> {
                  FenceToken fence = nextFence();
                  Rec installed = Rec.fresh(request, fence);
                  mine[0] = installed;
                  return installed;
                });
        if (current == mine[0]) {
          return ClaimOutcome.Claimed.fresh(current.fence);
        }
        continue;
      }
      if (current.countsAsAbsent(now, request.replayWindow())) {
        FenceToken fence = nextFence();
        Rec claimed = Rec.fresh(request, fence);
        if (records.replace(id, current, claimed)) {
          return ClaimOutcome.Claimed.fresh(fence);
        }
        current = records.get(id);
        continue;
      }
      if (!current.fingerprint.equals(request.fingerprint())) {
        return new ClaimOutcome.Mismatch(current.state);
      }
      if (current.state == KeyState.COMPLETE) {
        return new ClaimOutcome.Completed(current.response(), current.completedAt());
      }
      if (now.isBefore(current.leaseExpiresAt)) {
        return new ClaimOutcome.InFlight(Duration.between(now, current.leaseExpiresAt));
      }
      FenceToken fence = nextFence();
      Rec takenOver =
          new Rec(
              KeyState.IN_FLIGHT,
              current.fingerprint,
              fence,
              current.generation,
              now.plus(request.lease()),
              current.recoveryPoint,
              null,
              null,
              current.keepUntil);
      if (records.replace(id, current, takenOver)) {
        return new ClaimOutcome.Claimed(
            fence, Optional.ofNullable(current.recoveryPoint), true, current.generation);
      }
      current = records.get(id);
    }
  }

  private FenceToken nextFence() {
    return FenceToken.of(fences.incrementAndGet());
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Objects.requireNonNull(now, "now");
    requirePositive(lease, "lease");
    Instant leaseEnd = now.plus(lease);
    fencedUpdate(
        id,
        fence,
        StateTransition.HEARTBEAT,
        r ->
            new Rec(
                KeyState.IN_FLIGHT,
                r.fingerprint,
                r.fence,
                r.generation,
                leaseEnd,
                r.recoveryPoint,
                null,
                null,
                r.keepUntil));
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(point, "point");
    Objects.requireNonNull(now, "now");
    requirePositive(lease, "lease");
    Instant leaseEnd = now.plus(lease);
    fencedUpdate(
        id,
        fence,
        StateTransition.CHECKPOINT,
        r ->
            new Rec(
                KeyState.IN_FLIGHT,
                r.fingerprint,
                r.fence,
                r.generation,
                leaseEnd,
                point,
                null,
                null,
                r.keepUntil));
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(now, "now");
    fencedUpdate(
        id,
        fence,
        StateTransition.COMPLETE,
        r ->
            new Rec(
                KeyState.COMPLETE,
                r.fingerprint,
                r.fence,
                r.generation,
                r.leaseExpiresAt,
                r.recoveryPoint,
                response,
                now,
                r.keepUntil));
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(now, "now");
    fencedUpdate(id, fence, StateTransition.RELEASE, r -> null);
  }

  /** Replaces the record with a copy that names the later of its hold and {@code keepUntil}. */
  @Override
  public void extendRetention(RecordId id, FenceToken fence, Instant keepUntil, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(keepUntil, "keepUntil");
    Objects.requireNonNull(now, "now");
    while (true) {
      Rec current = records.get(id);
      if (current == null) {
        throw new LeaseLostException(id, fence, "the record is absent");
      }
      if (!current.fence.equals(fence)) {
        throw new LeaseLostException(id, fence, "the current fence is " + current.fence);
      }
      if (records.replace(id, current, current.keptUntil(keepUntil))) {
        return;
      }
    }
  }

  /**
   * Replaces the record with {@code change(record)} (removes it when that is {@code null}) if
   * {@code fence} is its current token and it is in the transition's source state; throws {@link
   * LeaseLostException} otherwise, changing nothing.
   */
  private void fencedUpdate(
      RecordId id, FenceToken fence, StateTransition transition, UnaryOperator<Rec> change) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    while (true) {
      Rec current = records.get(id);
      if (current == null) {
        throw new LeaseLostException(id, fence, "the record is absent");
      }
      if (!current.fence.equals(fence)) {
        throw new LeaseLostException(id, fence, "the current fence is " + current.fence);
      }
      if (current.state != transition.from()) {
        throw new LeaseLostException(id, fence, "the record is " + current.state);
      }
      Rec next = change.apply(current);
      if (next == null ? records.remove(id, current) : records.replace(id, current, next)) {
        return;
      }
    }
  }

  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    Rec r = records.get(id);
    return r == null ? Optional.empty() : Optional.of(snapshot(id, r));
  }

  private static RecordSnapshot snapshot(RecordId id, Rec r) {
    return new RecordSnapshot(
        id,
        r.state,
        r.fingerprint,
        r.fence,
        r.state == KeyState.IN_FLIGHT ? Optional.of(r.leaseExpiresAt) : Optional.empty(),
        Optional.ofNullable(r.recoveryPoint),
        Optional.ofNullable(r.response),
        Optional.ofNullable(r.completedAt));
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

  /**
   * Pages in record order (scope, then key, as {@link String#compareTo} orders them): each call
   * walks the map once and keeps the page's records only.
   */
  @Override
  public RecordPage list(RecordQuery query) {
    Objects.requireNonNull(query, "query");
    Optional<RecordId> after = query.after().map(PageCursor::lastRecord);
    TreeMap<RecordId, RecordSnapshot> page = new TreeMap<>(RECORD_ORDER);
    for (Map.Entry<RecordId, Rec> e : records.entrySet()) {
      RecordId id = e.getKey();
      boolean otherScope = query.scope().isPresent() && !query.scope().get().equals(id.scope());
      if (otherScope || (after.isPresent() && RECORD_ORDER.compare(id, after.get()) <= 0)) {
        continue;
      }
      RecordSnapshot s = snapshot(id, e.getValue());
      if (!query.selection().matches(s, query.now())) {
        continue;
      }
      page.put(id, s);
      if (page.size() > query.limit()) {
        page.pollLastEntry();
      }
    }
    Optional<PageCursor> next =
        page.size() == query.limit()
            ? Optional.of(PageCursor.afterRecord(page.lastKey()))
            : Optional.empty();
    return new RecordPage(List.copyOf(page.values()), next);
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return CAPABILITIES;
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
      boolean expired =
          r.state == KeyState.COMPLETE
              ? !r.completedAt().isAfter(cutoff)
              : !r.leaseExpiresAt.isAfter(cutoff);
      boolean held = r.keepUntil != null && now.isBefore(r.keepUntil);
      // remove(key, value) deletes only the exact record judged expired, never one that changed
      // meanwhile
      if (expired && !held && records.remove(e.getKey(), r)) {
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
