package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StateTransition;
import dev.idempotency.StateTransition.TransitionCause;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The sequential reference model of a {@code KeyStore}: KeyStore's javadoc, executable. Given a
 * state and one call with the result the store returned, {@link #apply} says whether the result is
 * one the contract allows and what the state is afterwards.
 *
 * <p>The model cannot predict fence values (a store may use one sequence for all records), so it
 * accepts any fence greater than every fence it has seen for the record and adopts it. With {@code
 * exactTime} (a controlled clock) it checks times to the millisecond; without (a {@code
 * SERVER_CLOCK} store, whose histories are built so that nothing expires) it checks only what does
 * not depend on the server's clock. States are immutable, so the linearizability search can branch
 * freely.
 *
 * <p>One file of about 800 lines (formatted to 100 columns): it is one specification, every call
 * judged against the same record states, and split by call its rules would no longer read side by
 * side.
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

  /** The verdict on one call: the next state, or the rule the result broke and how. */
  public record Step(@Nullable State next, @Nullable Rule rule, @Nullable String violation) {
    static Step ok(State next) {
      return new Step(next, null, null);
    }

    static Step fail(Rule rule, String violation) {
      return new Step(null, rule, violation);
    }

    /** Whether the result was allowed. */
    public boolean ok() {
      return rule == null;
    }

    /** The state after an allowed result. */
    public State after() {
      return Objects.requireNonNull(next, "only an allowed result leads to a next state");
    }
  }

  private final boolean exactTime;

  /**
   * A model that checks times exactly ({@code true}, controlled clock) or only where the server's
   * clock cannot matter.
   */
  public ReferenceModel(boolean exactTime) {
    this.exactTime = exactTime;
  }

  /** Applies {@code op}, which returned {@code observed}, to {@code s}. */
  public Step apply(State s, Op op, Result observed) {
    Objects.requireNonNull(observed, "observed");
    if (op instanceof Op.Claim c) {
      return claim(s, c, observed);
    } else if (op instanceof Op.Heartbeat h) {
      return write(
          s,
          h.id(),
          h.fence(),
          h.now(),
          observed,
          TransitionCause.HEARTBEAT,
          r -> r.withLease(h.now(), h.lease()));
    } else if (op instanceof Op.Checkpoint c) {
      return write(
          s,
          c.id(),
          c.fence(),
          c.now(),
          observed,
          TransitionCause.CHECKPOINT,
          r ->
              new Rec(
                  r.state(),
                  r.fingerprint(),
                  r.fence(),
                  c.now().plus(c.lease()),
                  c.lease(),
                  c.point(),
                  null,
                  null));
    } else if (op instanceof Op.Complete c) {
      return write(
          s,
          c.id(),
          c.fence(),
          c.now(),
          observed,
          TransitionCause.COMPLETE,
          r ->
              new Rec(
                  KeyState.COMPLETE,
                  r.fingerprint(),
                  r.fence(),
                  null,
                  r.lastLease(),
                  r.point(),
                  c.response(),
                  exactTime ? c.now() : null));
    } else if (op instanceof Op.Release r) {
      return write(s, r.id(), r.fence(), r.now(), observed, TransitionCause.RELEASE, rec -> null);
    } else if (op instanceof Op.Lookup l) {
      return lookup(s, l, observed);
    } else if (op instanceof Op.FindAbandoned f) {
      return findAbandoned(s, f, observed);
    } else if (op instanceof Op.DeleteExpired d) {
      return deleteExpired(s, d, observed);
    }
    throw new IllegalArgumentException("unknown op " + op);
  }

  private Step claim(State s, Op.Claim c, Result observed) {
    RecordId id = c.id();
    Rec r = s.record(id);
    long max = s.maxFence(id);
    Instant completedAt = r == null || r.state() != KeyState.COMPLETE ? null : r.completedAt();
    Instant windowEnd = completedAt == null ? null : completedAt.plus(c.window());
    boolean windowPassed = windowEnd != null && !c.now().isBefore(windowEnd);
    if (r == null || windowPassed) {
      Rule rule =
          windowPassed
              ? Rule.R4_3
              : max == 0
                  ? Rule.R1_1
                  : "purged".equals(s.goneBecause.get(id)) ? Rule.R7_4 : Rule.R5_3;
      String situation =
          windowPassed
              ? "the record completed at "
                  + completedAt
                  + " and the window "
                  + c.window()
                  + " passed at "
                  + windowEnd
                  + ", so the claim at "
                  + c.now()
                  + " is a new request"
              : max == 0 ? "the record does not exist" : "the record was " + s.goneBecause.get(id);
      if (!(observed instanceof Result.Outcome o
          && o.outcome() instanceof ClaimOutcome.Claimed cl)) {
        return Step.fail(
            rule, situation + ": expected a fresh Claimed, got " + observed.describe());
      }
      if (cl.takeover() || cl.resumeFrom().isPresent()) {
        return Step.fail(
            rule,
            situation + ": expected takeover=false and no resumeFrom, got " + observed.describe());
      }
      if (cl.fence().value() <= max) {
        return Step.fail(
            Rule.R3_1,
            situation
                + ": the new fence "
                + cl.fence()
                + " is not greater than fence#"
                + max
                + ", issued before for this record");
      }
      Rec claimed =
          new Rec(
              KeyState.IN_FLIGHT,
              c.fingerprint(),
              cl.fence(),
              c.now().plus(c.lease()),
              c.lease(),
              null,
              null,
              null);
      if (windowPassed) {
        along(r, null, TransitionCause.TIME);
      }
      along(null, claimed, TransitionCause.CLAIM);
      return Step.ok(s.with(id, claimed, null));
    }
    if (!r.fingerprint().equals(c.fingerprint())) {
      Rule rule = r.state() == KeyState.IN_FLIGHT ? Rule.R1_5 : Rule.R1_6;
      if (observed instanceof Result.Outcome o
          && o.outcome() instanceof ClaimOutcome.Mismatch m
          && m.existingState() == r.state()) {
        return Step.ok(s);
      }
      return Step.fail(
          rule,
          "the record is "
              + r.state()
              + " with "
              + Describe.fingerprint(r.fingerprint())
              + " and the claim has "
              + Describe.fingerprint(c.fingerprint())
              + ": expected Mismatch("
              + r.state()
              + "), got "
              + observed.describe());
    }
    if (r.state() == KeyState.IN_FLIGHT && c.now().isBefore(r.leaseExpiresAt())) {
      if (!(observed instanceof Result.Outcome o
          && o.outcome() instanceof ClaimOutcome.InFlight f)) {
        return Step.fail(
            Rule.R1_2,
            "the lease of "
                + r.fence()
                + " is live until "
                + r.leaseExpiresAt()
                + " and the claim is at "
                + c.now()
                + ": expected InFlight, got "
                + observed.describe());
      }
      Duration expected = Duration.between(c.now(), r.leaseExpiresAt());
      boolean right =
          exactTime
              ? f.leaseRemaining().equals(expected)
              : !f.leaseRemaining().isNegative()
                  && f.leaseRemaining().compareTo(r.lastLease()) <= 0;
      if (!right) {
        return Step.fail(
            Rule.R1_3,
            "expected InFlight(leaseRemaining="
                + (exactTime ? expected : "0.." + r.lastLease())
                + "), got "
                + observed.describe());
      }
      return Step.ok(s);
    }
    if (r.state() == KeyState.IN_FLIGHT) {
      String situation =
          "the lease of "
              + r.fence()
              + " expired at "
              + r.leaseExpiresAt()
              + " and the claim is at "
              + c.now();
      if (!(observed instanceof Result.Outcome o
          && o.outcome() instanceof ClaimOutcome.Claimed cl)) {
        return Step.fail(
            Rule.R4_1, situation + ": expected a takeover, got " + observed.describe());
      }
      Optional<RecoveryPoint> point = Optional.ofNullable(r.point());
      if (!cl.takeover() || !cl.resumeFrom().equals(point)) {
        return Step.fail(
            Rule.R4_2,
            situation
                + ": expected Claimed(takeover=true, resumeFrom="
                + Describe.point(r.point())
                + "), got "
                + observed.describe());
      }
      if (cl.fence().value() <= max) {
        return Step.fail(
            Rule.R3_1,
            situation
                + ": the takeover's fence "
                + cl.fence()
                + " is not greater than fence#"
                + max
                + ", issued before for this record");
      }
      Rec takenOver =
          new Rec(
              KeyState.IN_FLIGHT,
              r.fingerprint(),
              cl.fence(),
              c.now().plus(c.lease()),
              c.lease(),
              r.point(),
              null,
              null);
      along(r, takenOver, TransitionCause.CLAIM);
      return Step.ok(s.with(id, takenOver, null));
    }
    // COMPLETE within the window (or with an unknown completion time, which only server-clock
    // histories have)
    if (!(observed instanceof Result.Outcome o
        && o.outcome() instanceof ClaimOutcome.Completed done)) {
      return Step.fail(
          Rule.R1_4,
          "the record completed at "
              + r.completedAt()
              + " with "
              + Describe.response(r.response())
              + " and the claim is at "
              + c.now()
              + ", within the window "
              + c.window()
              + ": expected Completed, got "
              + observed.describe());
    }
    if (!Samples.identical(done.response(), r.storedResponse())) {
      return Step.fail(
          Rule.R5_1,
          "the replay differs from the stored response: stored "
              + Describe.response(r.response())
              + ", replayed "
              + Describe.response(done.response()));
    }
    if (r.completedAt() == null) {
      return Step.ok(
          s.with(
              id,
              new Rec(
                  r.state(),
                  r.fingerprint(),
                  r.fence(),
                  null,
                  r.lastLease(),
                  r.point(),
                  r.response(),
                  done.completedAt()),
              null));
    }
    if (!done.completedAt().equals(r.completedAt())) {
      return Step.fail(
          exactTime ? Rule.R4_7 : Rule.R1_4,
          "Completed.completedAt is "
              + done.completedAt()
              + ", but the record completed at "
              + r.completedAt());
    }
    return Step.ok(s);
  }

  /**
   * The model moves a record only along a row of {@link StateTransition}'s table, so every store
   * the model accepts moved its records along the table too; a move outside it is a bug of the
   * model and throws {@link dev.idempotency.IllegalStateTransitionException}.
   */
  private static void along(@Nullable Rec before, @Nullable Rec after, TransitionCause cause) {
    StateTransition.of(
        before == null ? KeyState.ABSENT : before.state(),
        after == null ? KeyState.ABSENT : after.state(),
        cause);
  }

  /** What a successful fenced write makes of the record; null when it removes the record. */
  private interface Change {
    @Nullable Rec apply(Rec r);
  }

  private Step write(
      State s,
      RecordId id,
      FenceToken fence,
      Instant now,
      Result observed,
      TransitionCause cause,
      Change change) {
    String what = cause.name().toLowerCase(Locale.ROOT);
    Rec r = s.record(id);
    if (r != null
        && r.state() == KeyState.IN_FLIGHT
        && r.fence().equals(fence)) { // the owner's write
      if (observed instanceof Result.Ok) {
        Rec next = change.apply(r);
        along(r, next, cause);
        return Step.ok(s.with(id, next, "released"));
      }
      boolean expired = !now.isBefore(r.leaseExpiresAt());
      return Step.fail(
          Rule.R3_3,
          what
              + " with "
              + fence
              + ", the record's current fence, on the IN_FLIGHT record"
              + (expired
                  ? " (lease expired at " + r.leaseExpiresAt() + ", but nobody took it over)"
                  : "")
              + ": expected success, got "
              + observed.describe());
    }
    if (observed instanceof Result.Lost) {
      return Step.ok(s);
    }
    Rule rule;
    String found;
    if (r == null) {
      rule = Rule.R3_4;
      found =
          s.maxFence(id) == 0
              ? "the record does not exist"
              : "the record is " + s.goneBecause.get(id);
    } else if (r.state() == KeyState.COMPLETE) {
      rule = Rule.R5_2;
      found = "the record is COMPLETE";
    } else if (fence.value() < r.fence().value()) {
      rule = Rule.R3_2;
      found = "the record was taken over: its current fence is " + r.fence();
    } else {
      rule = Rule.R3_4;
      found = "the record's current fence is " + r.fence();
    }
    return Step.fail(
        rule,
        what
            + " with "
            + fence
            + " while "
            + found
            + ": expected LeaseLostException, got "
            + observed.describe());
  }

  private Step lookup(State s, Op.Lookup l, Result observed) {
    if (!(observed instanceof Result.Snapshot snap)) {
      return Step.fail(Rule.R1_7, "lookup(" + l.id() + ") returned " + observed.describe());
    }
    Rec r = s.record(l.id());
    if (r == null) {
      if (snap.snapshot().isEmpty()) {
        return Step.ok(s);
      }
      String why = s.maxFence(l.id()) == 0 ? "never claimed" : s.goneBecause.get(l.id());
      Rule rule = "released".equals(why) ? Rule.R5_3 : "purged".equals(why) ? Rule.R7_4 : Rule.R1_7;
      return Step.fail(
          rule,
          "lookup("
              + l.id()
              + ") of a record that is "
              + why
              + " should be empty, got "
              + Describe.snapshot(snap.snapshot()));
    }
    if (snap.snapshot().isEmpty()) {
      return Step.fail(
          Rule.R1_7,
          "lookup(" + l.id() + ") is empty, but the record exists: " + r.state() + " " + r.fence());
    }
    String diff = compare(r, l.id(), snap.snapshot().get());
    if (diff != null) {
      return Step.fail(
          diff.startsWith("leaseExpiresAt") || diff.startsWith("completedAt")
              ? Rule.R4_7
              : Rule.R1_7,
          "lookup(" + l.id() + ") returned " + Describe.snapshot(snap.snapshot()) + ": " + diff);
    }
    if (r.state() == KeyState.COMPLETE && r.completedAt() == null) {
      Instant seen = snap.snapshot().get().completedAt().orElseThrow();
      return Step.ok(
          s.with(
              l.id(),
              new Rec(
                  r.state(),
                  r.fingerprint(),
                  r.fence(),
                  null,
                  r.lastLease(),
                  r.point(),
                  r.response(),
                  seen),
              null));
    }
    return Step.ok(s);
  }

  /** Null when the snapshot shows the record as the model has it, else what differs. */
  private @Nullable String compare(Rec r, RecordId id, RecordSnapshot snap) {
    if (!snap.id().equals(id)) {
      return "it is the snapshot of another record, " + snap.id();
    }
    if (snap.state() != r.state()) {
      return "state " + snap.state() + ", expected " + r.state();
    }
    if (!snap.fingerprint().equals(r.fingerprint())) {
      return "fingerprint "
          + Describe.fingerprint(snap.fingerprint())
          + ", expected "
          + Describe.fingerprint(r.fingerprint());
    }
    if (!snap.fence().equals(r.fence())) {
      return "fence " + snap.fence() + ", expected the current fence " + r.fence();
    }
    if (r.state() == KeyState.IN_FLIGHT) {
      if (!snap.recoveryPoint().equals(Optional.ofNullable(r.point()))) {
        return "recovery point "
            + snap.recoveryPoint().map(Describe::point).orElse("none")
            + ", expected "
            + Describe.point(r.point());
      }
      if (exactTime && !snap.leaseExpiresAt().equals(Optional.of(r.leaseEnd()))) {
        return "leaseExpiresAt "
            + snap.leaseExpiresAt().map(Instant::toString).orElse("none")
            + ", expected "
            + r.leaseExpiresAt();
      }
    } else {
      if (snap.response().isEmpty()
          || !Samples.identical(snap.response().get(), r.storedResponse())) {
        return "response "
            + snap.response().map(Describe::response).orElse("none")
            + ", expected "
            + Describe.response(r.response());
      }
      if (r.completedAt() != null && !snap.completedAt().equals(Optional.of(r.completedAt()))) {
        return "completedAt "
            + snap.completedAt().map(Instant::toString).orElse("none")
            + ", expected "
            + r.completedAt();
      }
    }
    return null;
  }

  private Step findAbandoned(State s, Op.FindAbandoned f, Result observed) {
    if (!(observed instanceof Result.Found found)) {
      return Step.fail(Rule.R7_5, "findAbandoned returned " + observed.describe());
    }
    List<RecordId> eligible = new ArrayList<>();
    for (RecordId id : s.ids()) {
      Rec r = s.present(id);
      if (r.state() == KeyState.IN_FLIGHT && !r.leaseEnd().isAfter(f.now())) {
        eligible.add(id);
      }
    }
    eligible.sort(Comparator.comparing(id -> s.present(id).leaseEnd()));
    List<RecordSnapshot> got = found.records();
    String expected =
        " (expected "
            + Math.min(f.limit(), eligible.size())
            + " of the abandoned "
            + eligible
            + ")";
    if (got.size() != Math.min(f.limit(), eligible.size())) {
      return Step.fail(
          Rule.R7_5,
          "findAbandoned(limit="
              + f.limit()
              + ") returned "
              + got.size()
              + " records "
              + Describe.snapshots(got)
              + expected);
    }
    Set<RecordId> seen = new HashSet<>();
    Instant last = null;
    for (RecordSnapshot snap : got) {
      Rec r = s.record(snap.id());
      if (r == null || !eligible.contains(snap.id()) || !seen.add(snap.id())) {
        return Step.fail(
            Rule.R7_5,
            "findAbandoned returned "
                + Describe.snapshot(snap)
                + ", which is not an abandoned record (or is repeated)"
                + expected);
      }
      String diff = compare(r, snap.id(), snap);
      if (diff != null) {
        return Step.fail(
            Rule.R7_5,
            "findAbandoned's snapshot " + Describe.snapshot(snap) + " is wrong: " + diff);
      }
      if (last != null && r.leaseEnd().isBefore(last)) {
        return Step.fail(
            Rule.R7_5,
            "findAbandoned is not ordered by lease expiry, oldest first: "
                + Describe.snapshots(got));
      }
      last = r.leaseEnd();
    }
    for (RecordId id : eligible) {
      if (!seen.contains(id) && last != null && s.present(id).leaseEnd().isBefore(last)) {
        return Step.fail(
            Rule.R7_5,
            "findAbandoned skipped "
                + id
                + " (lease expired at "
                + s.present(id).leaseEnd()
                + ") but returned a record whose lease expired later, at "
                + last);
      }
    }
    return Step.ok(s);
  }

  private Step deleteExpired(State s, Op.DeleteExpired d, Result observed) {
    if (!(observed instanceof Result.Deleted del)) {
      return Step.fail(Rule.R7_3, "deleteExpired returned " + observed.describe());
    }
    Set<RecordId> eligible = new HashSet<>();
    for (RecordId id : s.ids()) {
      if (isPastRetention(s.present(id), d.now(), d.retention())) {
        eligible.add(id);
      }
    }
    if (del.count() < 0 || del.count() > d.limit()) {
      return Step.fail(Rule.R7_3, "deleteExpired(limit=" + d.limit() + ") returned " + del.count());
    }
    if (del.which() == null) {
      // per-record projection of a concurrent history: each record is deleted iff eligible when the
      // call saw it
      State next = s;
      for (RecordId id : eligible) {
        along(s.record(id), null, TransitionCause.PURGE);
        next = next.with(id, null, "purged");
      }
      return Step.ok(next);
    }
    for (RecordId id : del.which()) {
      if (!eligible.contains(id)) {
        Rec r = s.record(id);
        return Step.fail(
            r != null && r.state() == KeyState.COMPLETE ? Rule.R7_1 : Rule.R7_2,
            "deleteExpired(now="
                + d.now()
                + ", retention="
                + d.retention()
                + ") deleted "
                + id
                + ", which is not past retention: "
                + (r == null
                    ? "absent"
                    : r.state()
                        + (r.state() == KeyState.COMPLETE
                            ? " completedAt=" + r.completedAt()
                            : " lease→" + r.leaseExpiresAt())));
      }
    }
    int expected = Math.min(d.limit(), eligible.size());
    if (del.count() != del.which().size() || del.count() != expected) {
      return Step.fail(
          Rule.R7_3,
          "deleteExpired(limit="
              + d.limit()
              + ") returned "
              + del.count()
              + " and deleted "
              + del.which()
              + ", but "
              + eligible.size()
              + " records were past retention "
              + eligible
              + ", so it should"
              + " have deleted "
              + expected);
    }
    State next = s;
    for (RecordId id : del.which()) {
      along(s.record(id), null, TransitionCause.PURGE);
      next = next.with(id, null, "purged");
    }
    return Step.ok(next);
  }

  /** Whether deleteExpired may delete {@code r} at {@code now}. */
  public static boolean isPastRetention(Rec r, Instant now, Duration retention) {
    if (r.state() == KeyState.COMPLETE) {
      return r.completedAt() != null && !r.completedAt().plus(retention).isAfter(now);
    }
    return !r.leaseEnd().isAfter(now.minus(retention));
  }
}
