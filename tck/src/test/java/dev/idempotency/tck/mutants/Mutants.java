package dev.idempotency.tck.mutants;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.PageCursor;
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
import java.util.TreeMap;

/**
 * Deliberately broken stores: each is {@link MapKeyStore} with one mutation, the kind of bug real
 * stores have. The self-test requires the contract to fail each one on the rule it breaks, with
 * that rule named.
 */
public final class Mutants {
  private Mutants() {}

  /**
   * (a) Check-then-insert: reads the record, pauses (as a network round trip would), then writes
   * blindly.
   */
  public static final class CheckThenInsert extends MapKeyStore {
    public CheckThenInsert() {}

    CheckThenInsert(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new CheckThenInsert(backend);
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
      Objects.requireNonNull(request, "request");
      Rec current;
      synchronized (backend.lock) {
        current = backend.records.get(key(request.id()));
      }
      Thread.yield();
      try {
        Thread.sleep(
            1); // the gap every read-then-write has; a round trip makes it this wide and wider
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (backend.lock) {
        return decide(request, current);
      }
    }
  }

  /** (b) No fencing: a write needs the record in flight, but any fence will do. */
  public static final class NoFencing extends MapKeyStore {
    public NoFencing() {}

    NoFencing(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new NoFencing(backend);
    }

    @Override
    protected boolean owns(Rec r, FenceToken fence, Instant now) {
      return r.state() == KeyState.IN_FLIGHT;
    }
  }

  /**
   * (c) Binary state, "seen or not": a claim of an in-flight record claims it again instead of
   * answering InFlight.
   */
  public static final class BinaryState extends MapKeyStore {
    public BinaryState() {}

    BinaryState(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new BinaryState(backend);
    }

    @Override
    protected ClaimOutcome inFlight(ClaimRequest request, Rec current, Instant now) {
      FenceToken fence = nextFence(key(request.id()));
      backend.records.put(
          key(request.id()),
          new Rec(
              KeyState.IN_FLIGHT,
              request.fingerprint(),
              fence,
              now.plus(request.lease()),
              null,
              null,
              null));
      return fresh(key(request.id()), fence);
    }
  }

  /** (d) Never expires: neither leases nor the replay window ever end. */
  public static final class NeverExpires extends MapKeyStore {
    public NeverExpires() {}

    NeverExpires(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new NeverExpires(backend);
    }

    @Override
    protected boolean expired(Instant end, Instant now) {
      return false;
    }

    @Override
    protected boolean windowPassed(Instant c, Duration window, Instant now) {
      return false;
    }
  }

  /** (e) Fence kept in the record: released or purged, the record's counter starts again at 1. */
  public static final class FenceReset extends MapKeyStore {
    public FenceReset() {}

    FenceReset(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new FenceReset(backend);
    }

    @Override
    protected void forget(Object key) {
      backend.fences.remove(key);
    }
  }

  /**
   * (e2) Fence drawn before the record is installed, in a separate step (as a store that calls
   * {@code nextval} and then inserts, or increments a counter and then does a put-if-absent): a
   * concurrent claim can draw a later fence, install and release it in between, and the earlier
   * fence is installed after it.
   */
  public static final class FenceDrawnBeforeInstall extends MapKeyStore {
    private final ThreadLocal<FenceToken> drawnEarly = new ThreadLocal<>();

    public FenceDrawnBeforeInstall() {}

    FenceDrawnBeforeInstall(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new FenceDrawnBeforeInstall(backend);
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
      Objects.requireNonNull(request, "request");
      Object key = key(request.id());
      FenceToken early;
      synchronized (backend.lock) {
        early = super.nextFence(key);
      }
      Thread.yield(); // the gap between the two steps
      synchronized (backend.lock) {
        drawnEarly.set(early);
        try {
          return decide(request, backend.records.get(key));
        } finally {
          drawnEarly.remove();
        }
      }
    }

    @Override
    protected FenceToken nextFence(Object key) {
      FenceToken early = drawnEarly.get();
      return early != null ? early : super.nextFence(key);
    }
  }

  /** (f) Off by one at the lease boundary: expired only after the end, not at it. */
  public static final class LeaseOffByOne extends MapKeyStore {
    public LeaseOffByOne() {}

    LeaseOffByOne(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new LeaseOffByOne(backend);
    }

    @Override
    protected boolean expired(Instant end, Instant now) {
      return now.isAfter(end);
    }
  }

  /** (g) An expired lease is taken over by any request, whatever its fingerprint. */
  public static final class TakeoverByAnyRequest extends MapKeyStore {
    public TakeoverByAnyRequest() {}

    TakeoverByAnyRequest(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new TakeoverByAnyRequest(backend);
    }

    @Override
    protected ClaimOutcome mismatch(ClaimRequest request, Rec current, Instant now) {
      if (current.state() == KeyState.IN_FLIGHT && expired(current.leaseExpiresAt(), now)) {
        FenceToken fence = nextFence(key(request.id()));
        backend.records.put(
            key(request.id()),
            new Rec(
                KeyState.IN_FLIGHT,
                request.fingerprint(),
                fence,
                now.plus(request.lease()),
                current.point(),
                null,
                null));
        return takenOver(key(request.id()), fence, current);
      }
      return super.mismatch(request, current, now);
    }
  }

  /** (h) deleteExpired ignores its limit: one unbounded batch. */
  public static final class UnboundedDelete extends MapKeyStore {
    public UnboundedDelete() {}

    UnboundedDelete(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new UnboundedDelete(backend);
    }

    @Override
    protected int batch(int limit) {
      return Integer.MAX_VALUE;
    }
  }

  /**
   * (i) Writes also require a live lease, so an owner that was slow but not taken over cannot
   * finish.
   */
  public static final class LiveLeaseRequired extends MapKeyStore {
    public LiveLeaseRequired() {}

    LiveLeaseRequired(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new LiveLeaseRequired(backend);
    }

    @Override
    protected boolean owns(Rec r, FenceToken fence, Instant now) {
      return super.owns(r, fence, now) && !expired(r.leaseExpiresAt(), now);
    }
  }

  /**
   * A batch renewal that renews what it can but reports no refused fence: owners never learn they
   * lost.
   */
  public static final class SilentBatchRenewal extends MapKeyStore {
    public SilentBatchRenewal() {}

    SilentBatchRenewal(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new SilentBatchRenewal(backend);
    }

    @Override
    public Set<RecordId> heartbeatAll(
        Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
      super.heartbeatAll(leases, now, lease);
      return Set.of();
    }
  }

  /**
   * A takeover that begins a generation of its own: the resumed request's downstream keys change.
   */
  public static final class GenerationNotKept extends MapKeyStore {
    public GenerationNotKept() {}

    GenerationNotKept(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new GenerationNotKept(backend);
    }

    @Override
    protected ClaimOutcome.Claimed takenOver(Object key, FenceToken fence, Rec current) {
      return new ClaimOutcome.Claimed(fence, Optional.ofNullable(current.point()), true, fence);
    }
  }

  /** (j) Headers kept in a sorted map: the replay's header order differs from the original's. */
  public static final class SortedHeaders extends MapKeyStore {
    public SortedHeaders() {}

    SortedHeaders(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new SortedHeaders(backend);
    }

    @Override
    protected StoredResponse keep(StoredResponse response) {
      return StoredResponse.of(
          response.status(), new TreeMap<>(response.headers()), response.body());
    }
  }

  /**
   * (k) Scope and key flattened into "scope/key", so ("a/b", "c") and ("a", "b/c") are one record.
   */
  public static final class FlatKey extends MapKeyStore {
    public FlatKey() {}

    FlatKey(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new FlatKey(backend);
    }

    @Override
    protected Object key(RecordId id) {
      return id.scope().value() + "/" + id.key().value();
    }

    @Override
    protected RecordId idOf(Object key) {
      String s = (String) key;
      int slash = s.indexOf('/');
      return RecordId.of(s.substring(0, slash), s.substring(slash + 1));
    }
  }

  /** (l) A declared response limit the store does not hold to: a larger response is kept. */
  public static final class LimitNotHeld extends MapKeyStore {
    public LimitNotHeld() {}

    LimitNotHeld(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new LimitNotHeld(backend);
    }

    @Override
    protected void refuseOversized(StoredResponse response) {}
  }

  /**
   * (m) A response over the declared limit refused as an outage ({@code
   * StoreUnavailableException}), which the engine would retry for a whole lease instead of storing
   * the not-stored marker.
   */
  public static final class LimitRefusedAsOutage extends MapKeyStore {
    public LimitRefusedAsOutage() {}

    LimitRefusedAsOutage(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new LimitRefusedAsOutage(backend);
    }

    @Override
    protected void refuseOversized(StoredResponse response) {
      if (response.size() > maxResponseBytes()) {
        throw new StoreUnavailableException("the write timed out");
      }
    }
  }

  /** Not a mutant: the correct store judging time by the system clock, declaring SERVER_CLOCK. */
  public static class ServerClock extends MapKeyStore {
    public ServerClock() {}

    ServerClock(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ServerClock(backend);
    }

    @Override
    protected Instant time(Instant given) {
      Objects.requireNonNull(given, "now");
      return Instant.now();
    }

    @Override
    public Set<StoreCapability> capabilities() {
      return Set.of(
          StoreCapability.SERVER_CLOCK, StoreCapability.LISTING, StoreCapability.EXTEND_RETENTION);
    }
  }

  /** (l1) A listing that ignores the selection: every record, whatever its state and lease. */
  public static final class ListIgnoresSelection extends MapKeyStore {
    public ListIgnoresSelection() {}

    ListIgnoresSelection(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ListIgnoresSelection(backend);
    }

    @Override
    protected boolean selected(RecordQuery query, RecordSnapshot s) {
      return true;
    }
  }

  /**
   * (l2) A cursor one record short: it names the page's last but one record, so the next page
   * starts with the last again.
   */
  public static final class ListRepeatsAcrossPages extends MapKeyStore {
    public ListRepeatsAcrossPages() {}

    ListRepeatsAcrossPages(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ListRepeatsAcrossPages(backend);
    }

    @Override
    protected PageCursor cursorAfter(List<RecordSnapshot> matching, int limit) {
      return PageCursor.afterRecord(matching.get(Math.max(0, limit - 2)).id());
    }
  }

  /**
   * (l3) A cursor one record long: it names the first record after the page (as a "start from"
   * position used as "after"), so that record is never listed.
   */
  public static final class ListSkipsAcrossPages extends MapKeyStore {
    public ListSkipsAcrossPages() {}

    ListSkipsAcrossPages(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ListSkipsAcrossPages(backend);
    }

    @Override
    protected PageCursor cursorAfter(List<RecordSnapshot> matching, int limit) {
      return PageCursor.afterRecord(matching.get(limit).id());
    }
  }

  /**
   * (l4) A scope matched as a prefix, as a key pattern {@code scope*} would: {@code tenant-1} also
   * lists {@code tenant-10}.
   */
  public static final class ListScopeAsPrefix extends MapKeyStore {
    public ListScopeAsPrefix() {}

    ListScopeAsPrefix(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ListScopeAsPrefix(backend);
    }

    @Override
    protected boolean inScope(RecordQuery query, RecordId id) {
      return query.scope().map(s -> id.scope().value().startsWith(s.value())).orElse(true);
    }
  }

  /**
   * (e1) An extension that does not check the fence: it keeps whatever record has the key, also one
   * that changed since the person looked.
   */
  public static final class ExtendIgnoresFence extends MapKeyStore {
    public ExtendIgnoresFence() {}

    ExtendIgnoresFence(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ExtendIgnoresFence(backend);
    }

    @Override
    protected boolean extendableWith(Rec r, FenceToken fence) {
      return true;
    }
  }

  /**
   * (e2) An extension that moves the record's own times instead of keeping a field of its own: the
   * completion time (and with it the replay window) or the lease's end, to {@code keepUntil}.
   */
  public static final class ExtendMovesTheWindow extends MapKeyStore {
    public ExtendMovesTheWindow() {}

    ExtendMovesTheWindow(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ExtendMovesTheWindow(backend);
    }

    @Override
    protected Rec extended(Rec r, Instant keepUntil) {
      return r.state() == KeyState.COMPLETE
          ? new Rec(
              r.state(),
              r.fingerprint(),
              r.fence(),
              r.leaseExpiresAt(),
              r.point(),
              r.response(),
              keepUntil)
          : new Rec(r.state(), r.fingerprint(), r.fence(), keepUntil, r.point(), null, null);
    }
  }

  /**
   * (e3) An extension that overwrites the instant set before, so that an earlier instant asked for
   * later shortens it (a plain {@code SET} where the later of the two was due).
   */
  public static final class ExtendShortens extends MapKeyStore {
    public ExtendShortens() {}

    ExtendShortens(Backend b) {
      super(b);
    }

    @Override
    public MapKeyStore peer() {
      return new ExtendShortens(backend);
    }

    @Override
    protected Instant keptUntil(Instant set, Instant asked) {
      return asked;
    }
  }

  /**
   * Not a mutant: the correct store on the system clock, but every claim takes as long as the
   * real-time lease (as on an overloaded machine), so the time rules' "just before the boundary"
   * checks always come too late.
   */
  public static final class SlowServerClock extends ServerClock {
    private final Duration latency;

    public SlowServerClock(Duration latency) {
      this.latency = latency;
    }

    SlowServerClock(Backend b, Duration latency) {
      super(b);
      this.latency = latency;
    }

    @Override
    public MapKeyStore peer() {
      return new SlowServerClock(backend, latency);
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
      try {
        Thread.sleep(latency.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while simulating a slow claim", e);
      }
      return super.claim(request);
    }
  }
}
