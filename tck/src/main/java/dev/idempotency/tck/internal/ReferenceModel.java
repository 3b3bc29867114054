package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.internal.StateTransition;
import dev.idempotency.internal.StateTransition.TransitionCause;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The sequential reference model of a {@code KeyStore}: the specification's state machine, what a
 * store holds after each call that succeeded. {@link ModelJudge} checks a store's answers against
 * it and says which rule an answer broke.
 *
 * <p>The model cannot predict fence values (a store may use one sequence for all records), so a
 * claim installs the fence the store returned, which the judge has checked is greater than every
 * fence seen for the record. With {@code exactTime} (a controlled clock) a completion's time is the
 * completing call's {@code now}; without (a {@code SERVER_CLOCK} store, whose histories are built
 * so that nothing expires) it is unknown until a replay or a lookup shows it. States are immutable,
 * so the linearizability search can branch freely.
 */
public final class ReferenceModel {

  /**
   * One stored record. {@code leaseExpiresAt} is null once complete; {@code point} until a
   * checkpoint; {@code response} while in flight; {@code completedAt} while in flight, and while
   * unknown (server clock).
   */
  public record Rec(
      KeyState state,
      Fingerprint fingerprint,
      FenceToken fence,
      @Nullable Instant leaseExpiresAt,
      Duration lastLease,
      @Nullable RecoveryPoint point,
      @Nullable StoredResponse response,
      @Nullable Instant completedAt) {

    Rec withLease(Instant now, Duration lease) {
      return new Rec(
          state, fingerprint, fence, now.plus(lease), lease, point, response, completedAt);
    }

    /** When the lease ends, which every IN_FLIGHT record has. */
    Instant leaseEnd() {
      return Objects.requireNonNull(leaseExpiresAt, "an IN_FLIGHT record has a lease");
    }

    /** The response, which every COMPLETE record has. */
    StoredResponse storedResponse() {
      return Objects.requireNonNull(response, "a COMPLETE record has its response");
    }
  }

  /**
   * The model's state: the records, the highest fence seen per record, and why absent records are
   * absent.
   */
  public static final class State {
    private static final State EMPTY = new State(Map.of(), Map.of(), Map.of());

    private final Map<RecordId, Rec> records;
    private final Map<RecordId, Long> maxFence;
    private final Map<RecordId, String> goneBecause;

    private State(
        Map<RecordId, Rec> records,
        Map<RecordId, Long> maxFence,
        Map<RecordId, String> goneBecause) {
      this.records = records;
      this.maxFence = maxFence;
      this.goneBecause = goneBecause;
    }

    /** The state of a fresh store. */
    public static State empty() {
      return EMPTY;
    }

    /** The record, or null when absent. */
    public @Nullable Rec record(RecordId id) {
      return records.get(id);
    }

    /** The record of one of {@link #ids()}. */
    Rec present(RecordId id) {
      return Objects.requireNonNull(
          records.get(id), () -> "the model holds no record " + id + " among its ids()");
    }

    /** Why an absent record is absent ("released", "purged"); null when it never existed. */
    @Nullable String goneBecause(RecordId id) {
      return goneBecause.get(id);
    }

    /** The highest fence seen for the record; 0 when none. */
    public long maxFence(RecordId id) {
      return maxFence.getOrDefault(id, 0L);
    }

    /** The records the model holds. */
    public Set<RecordId> ids() {
      return records.keySet();
    }

    /**
     * The state with {@code rec} for the record, or without it ({@code rec} null) and why it is
     * gone.
     */
    State with(RecordId id, @Nullable Rec rec, @Nullable String why) {
      Map<RecordId, Rec> r = new HashMap<>(records);
      Map<RecordId, Long> f = new HashMap<>(maxFence);
      Map<RecordId, String> g = new HashMap<>(goneBecause);
      if (rec == null) {
        r.remove(id);
        g.put(id, why);
      } else {
        r.put(id, rec);
        f.merge(id, rec.fence().value(), Math::max);
        g.remove(id);
      }
      return new State(r, f, g);
    }

    /** The state, for a failure message. */
    public String describe() {
      StringBuilder sb = new StringBuilder();
      for (Map.Entry<String, Rec> e : sorted().entrySet()) {
        Rec r = e.getValue();
        sb.append("\n    ")
            .append(e.getKey())
            .append(": ")
            .append(r.state())
            .append(' ')
            .append(Describe.fingerprint(r.fingerprint()))
            .append(' ')
            .append(r.fence())
            .append(r.leaseExpiresAt() == null ? "" : " lease→" + r.leaseExpiresAt())
            .append(r.point() == null ? "" : " point=" + r.point().name())
            .append(r.response() == null ? "" : " response=" + Describe.response(r.response()))
            .append(r.completedAt() == null ? "" : " completedAt=" + r.completedAt());
      }
      return sb.length() == 0 ? " (no records)" : sb.toString();
    }

    private Map<String, Rec> sorted() {
      Map<String, Rec> m = new TreeMap<>();
      records.forEach((k, v) -> m.put(k.toString(), v));
      return m;
    }
  }

  private final boolean exactTime;

  /**
   * A model that knows the completion time of a record ({@code true}, controlled clock) or learns
   * it from the store (the server's clock).
   */
  public ReferenceModel(boolean exactTime) {
    this.exactTime = exactTime;
  }

  /** Whether times are the calls' {@code now}, to the millisecond. */
  boolean exactTime() {
    return exactTime;
  }

  /**
   * When the replay window of {@code r} ends for a claim with {@code window}: null while the record
   * is not COMPLETE, or its completion time is unknown.
   */
  static @Nullable Instant windowEnd(@Nullable Rec r, Duration window) {
    Instant completedAt = r == null || r.state() != KeyState.COMPLETE ? null : r.completedAt();
    return completedAt == null ? null : completedAt.plus(window);
  }

  /**
   * After a claim won with {@code fence} a record that counts as absent: a new IN_FLIGHT record
   * with the claim's fingerprint (the completed record whose window passed, if any, goes first).
   */
  State afterFreshClaim(State s, Op.Claim c, FenceToken fence) {
    Rec before = s.record(c.id());
    Rec claimed =
        new Rec(
            KeyState.IN_FLIGHT,
            c.fingerprint(),
            fence,
            c.now().plus(c.lease()),
            c.lease(),
            null,
            null,
            null);
    if (before != null) {
      along(before, null, TransitionCause.TIME);
    }
    along(null, claimed, TransitionCause.CLAIM);
    return s.with(c.id(), claimed, null);
  }

  /**
   * After a claim took over {@code r}, whose lease expired, with {@code fence}: the fingerprint and
   * the recovery point kept, a new lease.
   */
  State afterTakeover(State s, Rec r, Op.Claim c, FenceToken fence) {
    Rec takenOver =
        new Rec(
            KeyState.IN_FLIGHT,
            r.fingerprint(),
            fence,
            c.now().plus(c.lease()),
            c.lease(),
            r.point(),
            null,
            null);
    along(r, takenOver, TransitionCause.CLAIM);
    return s.with(c.id(), takenOver, null);
  }

  /**
   * After a replay or a lookup showed when a COMPLETE record whose completion time was unknown
   * completed.
   */
  State afterCompletionSeen(State s, RecordId id, Rec r, Instant completedAt) {
    return s.with(
        id,
        new Rec(
            r.state(),
            r.fingerprint(),
            r.fence(),
            null,
            r.lastLease(),
            r.point(),
            r.response(),
            completedAt),
        null);
  }

  /**
   * After the owner's heartbeat, checkpoint, completion or release of the IN_FLIGHT record {@code
   * r}, with its current fence, succeeded.
   */
  State afterOwnersWrite(State s, Rec r, Op op) {
    Rec next;
    TransitionCause cause;
    if (op instanceof Op.Heartbeat h) {
      next = r.withLease(h.now(), h.lease());
      cause = TransitionCause.HEARTBEAT;
    } else if (op instanceof Op.Checkpoint c) {
      next =
          new Rec(
              r.state(),
              r.fingerprint(),
              r.fence(),
              c.now().plus(c.lease()),
              c.lease(),
              c.point(),
              null,
              null);
      cause = TransitionCause.CHECKPOINT;
    } else if (op instanceof Op.Complete c) {
      next =
          new Rec(
              KeyState.COMPLETE,
              r.fingerprint(),
              r.fence(),
              null,
              r.lastLease(),
              r.point(),
              c.response(),
              exactTime ? c.now() : null);
      cause = TransitionCause.COMPLETE;
    } else if (op instanceof Op.Release) {
      next = null;
      cause = TransitionCause.RELEASE;
    } else {
      throw new IllegalArgumentException("not a fenced write: " + op);
    }
    along(r, next, cause);
    return s.with(
        Objects.requireNonNull(op.id(), "a fenced write names its record"), next, "released");
  }

  /** After the reaper deleted {@code ids}. */
  static State afterPurge(State s, Iterable<RecordId> ids) {
    State next = s;
    for (RecordId id : ids) {
      along(s.record(id), null, TransitionCause.PURGE);
      next = next.with(id, null, "purged");
    }
    return next;
  }

  /** The IN_FLIGHT records whose lease ended by {@code now}, the oldest lease first. */
  static List<RecordId> abandoned(State s, Instant now) {
    List<RecordId> eligible = new ArrayList<>();
    for (RecordId id : s.ids()) {
      Rec r = s.present(id);
      if (r.state() == KeyState.IN_FLIGHT && !r.leaseEnd().isAfter(now)) {
        eligible.add(id);
      }
    }
    eligible.sort(Comparator.comparing(id -> s.present(id).leaseEnd()));
    return eligible;
  }

  /** The records deleteExpired may delete at {@code now}. */
  static Set<RecordId> pastRetention(State s, Instant now, Duration retention) {
    Set<RecordId> eligible = new HashSet<>();
    for (RecordId id : s.ids()) {
      if (isPastRetention(s.present(id), now, retention)) {
        eligible.add(id);
      }
    }
    return eligible;
  }

  /** Whether deleteExpired may delete {@code r} at {@code now}. */
  public static boolean isPastRetention(Rec r, Instant now, Duration retention) {
    if (r.state() == KeyState.COMPLETE) {
      return r.completedAt() != null && !r.completedAt().plus(retention).isAfter(now);
    }
    return !r.leaseEnd().isAfter(now.minus(retention));
  }

  /**
   * The model moves a record only along a row of {@link StateTransition}'s table, so every store
   * the model accepts moved its records along the table too; a move outside it is a bug of the
   * model and throws {@link dev.idempotency.internal.IllegalStateTransitionException}.
   */
  private static void along(@Nullable Rec before, @Nullable Rec after, TransitionCause cause) {
    StateTransition.of(
        before == null ? KeyState.ABSENT : before.state(),
        after == null ? KeyState.ABSENT : after.state(),
        cause);
  }
}
