package dev.idempotency.tck.mutants;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
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
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A deliberately plain, correct store: one lock around a HashMap, written straight from KeyStore's
 * javadoc. It is the control of the self-test (it passes the whole contract, so a mutant's failure
 * is caused by its one mutation) and the base of every mutant, which overrides one hook to break
 * one rule. Instances made with {@link #peer()} share the records, standing for a second
 * application instance.
 */
public class MapKeyStore implements KeyStore {

  /** One record; immutable, replaced on change. */
  protected record Rec(
      KeyState state,
      Fingerprint fingerprint,
      FenceToken fence,
      Instant leaseExpiresAt,
      RecoveryPoint point,
      StoredResponse response,
      Instant completedAt) {}

  /** What the instances of one store share. */
  protected static final class Backend {
    final Object lock = new Object();
    final Map<Object, Rec> records = new HashMap<>();
    final Map<Object, Long> fences = new HashMap<>();

    /** The fence of the claim that began each record's current request. */
    final Map<Object, FenceToken> generations = new HashMap<>();

    /**
     * The records an open transaction has claimed without committing, and the thread that holds
     * each: claims and fenced writes of another thread wait for it (see {@link #awaitRow}).
     */
    final Map<Object, Thread> rowOwners = new HashMap<>();

    /** The instant before which deleteExpired keeps each record, once a person extended it. */
    final Map<Object, Instant> keptUntil = new HashMap<>();
  }

  protected final Backend backend;

  public MapKeyStore() {
    this(new Backend());
  }

  protected MapKeyStore(Backend backend) {
    this.backend = backend;
  }

  /** Another instance over the same records; subclasses return their own type. */
  public MapKeyStore peer() {
    return new MapKeyStore(backend);
  }

  /** The map key of a record: the RecordId itself (a mutant flattens it). */
  protected Object key(RecordId id) {
    return id;
  }

  /** The time a decision is judged by. */
  protected Instant time(Instant given) {
    return given;
  }

  /** Whether a lease until {@code end} has expired at {@code now}. */
  protected boolean expired(Instant end, Instant now) {
    return !now.isBefore(end);
  }

  /** Whether a record completed at {@code c} counts as absent at {@code now}. */
  protected boolean windowPassed(Instant c, Duration window, Instant now) {
    return !now.isBefore(c.plus(window));
  }

  /** Whether {@code fence} owns {@code r} for a write at {@code now}. */
  protected boolean owns(Rec r, FenceToken fence, Instant now) {
    return r.state() == KeyState.IN_FLIGHT && r.fence().equals(fence);
  }

  /** The next fence of a record. */
  protected FenceToken nextFence(Object key) {
    return FenceToken.of(backend.fences.merge(key, 1L, Long::sum));
  }

  /** Called under the lock after a record was removed (released or purged). */
  protected void forget(Object key) {}

  /** What the store keeps of a response. */
  protected StoredResponse keep(StoredResponse response) {
    return response;
  }

  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    synchronized (backend.lock) {
      awaitRow(key(request.id()));
      return decide(request, backend.records.get(key(request.id())));
    }
  }

  /** Decides a claim on {@code current} and writes the result; called under the lock. */
  protected ClaimOutcome decide(ClaimRequest request, Rec current) {
    Object key = key(request.id());
    Instant now = time(request.now());
    Instant leaseEnd = now.plus(request.lease());
    if (current == null
        || current.state() == KeyState.COMPLETE
            && windowPassed(current.completedAt(), request.replayWindow(), now)) {
      FenceToken fence = nextFence(key);
      backend.records.put(
          key,
          new Rec(KeyState.IN_FLIGHT, request.fingerprint(), fence, leaseEnd, null, null, null));
      return fresh(key, fence);
    }
    if (!current.fingerprint().equals(request.fingerprint())) {
      return mismatch(request, current, now);
    }
    if (current.state() == KeyState.COMPLETE) {
      return new ClaimOutcome.Completed(current.response(), current.completedAt());
    }
    if (!expired(current.leaseExpiresAt(), now)) {
      return inFlight(request, current, now);
    }
    FenceToken fence = nextFence(key);
    backend.records.put(
        key,
        new Rec(
            KeyState.IN_FLIGHT,
            current.fingerprint(),
            fence,
            leaseEnd,
            current.point(),
            null,
            null));
    return takenOver(key, fence, current);
  }

  /**
   * Called under the lock before a claim or a fenced write of {@code key}: a store with
   * transactions that hold a record uncommitted waits here, as a database waits on a row lock.
   */
  protected void awaitRow(Object key) {}

  /** A fresh claim: it begins the record's generation. */
  protected ClaimOutcome.Claimed fresh(Object key, FenceToken fence) {
    backend.generations.put(key, fence);
    return ClaimOutcome.Claimed.fresh(fence);
  }

  /** A takeover of {@code current}: it keeps the generation of the request it resumes. */
  protected ClaimOutcome.Claimed takenOver(Object key, FenceToken fence, Rec current) {
    return new ClaimOutcome.Claimed(
        fence,
        Optional.ofNullable(current.point()),
        true,
        backend.generations.getOrDefault(key, fence));
  }

  /** The answer to another request on a record that does not count as absent. */
  protected ClaimOutcome mismatch(ClaimRequest request, Rec current, Instant now) {
    return new ClaimOutcome.Mismatch(current.state());
  }

  /** The answer to the same request on an in-flight record with a live lease. */
  protected ClaimOutcome inFlight(ClaimRequest request, Rec current, Instant now) {
    return new ClaimOutcome.InFlight(Duration.between(now, current.leaseExpiresAt()));
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    positive(lease);
    write(
        id,
        fence,
        now,
        r ->
            new Rec(
                r.state(),
                r.fingerprint(),
                r.fence(),
                time(now).plus(lease),
                r.point(),
                null,
                null));
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(point, "point");
    positive(lease);
    write(
        id,
        fence,
        now,
        r ->
            new Rec(
                r.state(), r.fingerprint(), r.fence(), time(now).plus(lease), point, null, null));
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(response, "response");
    refuseOversized(response);
    write(
        id,
        fence,
        now,
        r ->
            new Rec(
                KeyState.COMPLETE,
                r.fingerprint(),
                r.fence(),
                null,
                r.point(),
                keep(response),
                time(now)));
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    write(id, fence, now, r -> null);
  }

  @Override
  public void extendRetention(RecordId id, FenceToken fence, Instant keepUntil, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(keepUntil, "keepUntil");
    Objects.requireNonNull(now, "now");
    synchronized (backend.lock) {
      Object key = key(id);
      awaitRow(key);
      Rec r = backend.records.get(key);
      if (r == null || !extendableWith(r, fence)) {
        throw new LeaseLostException(
            id, fence, r == null ? "the record is absent" : "the record has " + r.fence());
      }
      backend.records.put(key, extended(r, keepUntil));
      backend.keptUntil.merge(key, keepUntil, this::keptUntil);
    }
  }

  /** The instant a record is kept until, after one that was set and one asked for: the later. */
  protected Instant keptUntil(Instant set, Instant asked) {
    return set.isAfter(asked) ? set : asked;
  }

  /** Whether {@code fence} may extend {@code r}'s retention: it is the record's current one. */
  protected boolean extendableWith(Rec r, FenceToken fence) {
    return r.fence().equals(fence);
  }

  /** The record once its retention is extended: the same record (only the deletion reads it). */
  protected Rec extended(Rec r, Instant keepUntil) {
    return r;
  }

  private interface Change {
    Rec apply(Rec r);
  }

  private void write(RecordId id, FenceToken fence, Instant now, Change change) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
    synchronized (backend.lock) {
      Object key = key(id);
      awaitRow(key);
      Rec r = backend.records.get(key);
      if (r == null || !owns(r, fence, time(now))) {
        throw new LeaseLostException(
            id,
            fence,
            r == null
                ? "the record is absent"
                : "the record is " + r.state() + " with " + r.fence());
      }
      Rec next = change.apply(r);
      if (next == null) {
        backend.records.remove(key);
        backend.keptUntil.remove(key);
        forget(key);
      } else {
        backend.records.put(key, next);
      }
    }
  }

  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    synchronized (backend.lock) {
      Rec r = backend.records.get(key(id));
      return r == null ? Optional.empty() : Optional.of(snapshot(id, r));
    }
  }

  private static RecordSnapshot snapshot(RecordId id, Rec r) {
    return new RecordSnapshot(
        id,
        r.state(),
        r.fingerprint(),
        r.fence(),
        Optional.ofNullable(r.leaseExpiresAt()),
        Optional.ofNullable(r.point()),
        Optional.ofNullable(r.response()),
        Optional.ofNullable(r.completedAt()));
  }

  /** The RecordId a map key stands for (the key is the id, except in the flattening mutant). */
  protected RecordId idOf(Object key) {
    return (RecordId) key;
  }

  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, but was " + limit);
    }
    synchronized (backend.lock) {
      List<RecordSnapshot> found = new ArrayList<>();
      for (Map.Entry<Object, Rec> e : backend.records.entrySet()) {
        Rec r = e.getValue();
        if (r.state() == KeyState.IN_FLIGHT && expired(r.leaseExpiresAt(), time(now))) {
          found.add(snapshot(idOf(e.getKey()), r));
        }
      }
      found.sort(Comparator.comparing(s -> s.leaseExpiresAt().orElseThrow()));
      return List.copyOf(found.subList(0, Math.min(limit, found.size())));
    }
  }

  /** Lists in record order (scope, then key), as the in-memory store does. */
  @Override
  public RecordPage list(RecordQuery query) {
    Objects.requireNonNull(query, "query");
    Optional<RecordId> after = query.after().map(PageCursor::lastRecord);
    synchronized (backend.lock) {
      List<RecordSnapshot> matching = new ArrayList<>();
      for (Map.Entry<Object, Rec> e : backend.records.entrySet()) {
        RecordId id = idOf(e.getKey());
        RecordSnapshot s = snapshot(id, e.getValue());
        if (inScope(query, id)
            && selected(query, s)
            && (after.isEmpty() || RECORD_ORDER.compare(id, after.get()) > 0)) {
          matching.add(s);
        }
      }
      matching.sort(Comparator.comparing(RecordSnapshot::id, RECORD_ORDER));
      List<RecordSnapshot> page = matching.subList(0, Math.min(query.limit(), matching.size()));
      Optional<PageCursor> next =
          matching.size() > query.limit()
              ? Optional.of(cursorAfter(matching, query.limit()))
              : Optional.empty();
      return new RecordPage(page, next);
    }
  }

  /** The order records are listed in. */
  protected static final Comparator<RecordId> RECORD_ORDER =
      Comparator.comparing((RecordId id) -> id.scope().value())
          .thenComparing(id -> id.key().value());

  /** Whether a listing of {@code query} includes the record {@code s}. */
  protected boolean selected(RecordQuery query, RecordSnapshot s) {
    return query.selection().matches(s, time(query.now()));
  }

  /** Whether {@code id} is in the scope {@code query} asks for. */
  protected boolean inScope(RecordQuery query, RecordId id) {
    return query.scope().map(id.scope()::equals).orElse(true);
  }

  /**
   * The cursor after a page of the first {@code limit} of {@code matching}, in record order: the
   * page's last record.
   */
  protected PageCursor cursorAfter(List<RecordSnapshot> matching, int limit) {
    return PageCursor.afterRecord(matching.get(limit - 1).id());
  }

  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    Objects.requireNonNull(now, "now");
    positive(retention);
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, but was " + limit);
    }
    synchronized (backend.lock) {
      Instant cutoff = time(now).minus(retention);
      int deleted = 0;
      Iterator<Map.Entry<Object, Rec>> it = backend.records.entrySet().iterator();
      while (it.hasNext() && deleted < batch(limit)) {
        Map.Entry<Object, Rec> e = it.next();
        Rec r = e.getValue();
        Instant since = r.state() == KeyState.COMPLETE ? r.completedAt() : r.leaseExpiresAt();
        Instant kept = backend.keptUntil.get(e.getKey());
        if (!since.isAfter(cutoff) && (kept == null || !time(now).isBefore(kept))) {
          it.remove();
          backend.keptUntil.remove(e.getKey());
          forget(e.getKey());
          deleted++;
        }
      }
      return deleted;
    }
  }

  /** The largest response kept: 128 KiB, twice rule 5.1's largest body. */
  public static final long MAX_RESPONSE_BYTES = 128 * 1024;

  @Override
  public long maxResponseBytes() {
    return MAX_RESPONSE_BYTES;
  }

  /** Refuses, before anything changes, a response larger than {@link #maxResponseBytes()}. */
  protected void refuseOversized(StoredResponse response) {
    if (response.size() > MAX_RESPONSE_BYTES) {
      throw new KeyStoreException(
          "the response has "
              + response.size()
              + " bytes; this store keeps at most "
              + MAX_RESPONSE_BYTES);
    }
  }

  /** How many records one deleteExpired may delete. */
  protected int batch(int limit) {
    return limit;
  }

  private static void positive(Duration d) {
    Objects.requireNonNull(d, "duration");
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("must be > 0, but was " + d);
    }
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return Set.of(StoreCapability.LISTING, StoreCapability.EXTEND_RETENTION);
  }
}
