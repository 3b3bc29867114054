package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.ReferenceModel.Rec;
import dev.idempotency.tck.internal.ReferenceModel.State;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Judges a store's answers against the {@link ReferenceModel}: given the model's state and one call
 * with the result the store returned, {@link #apply} says whether the result is one the contract
 * allows, and the state afterwards; or which rule it broke, and how. It accepts any fence greater
 * than every fence the model has seen for the record. With {@code exactTime} (a controlled clock)
 * it checks times to the millisecond; without (a {@code SERVER_CLOCK} store) it checks only what
 * does not depend on the server's clock.
 */
public final class ModelJudge {

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

  private final ReferenceModel model;
  private final boolean exactTime;
  private final ClaimJudge claims;

  /** A judge of answers against {@code model}, as exact about times as the model is. */
  public ModelJudge(ReferenceModel model) {
    this.model = model;
    this.exactTime = model.exactTime();
    this.claims = new ClaimJudge(model);
  }

  /** Judges {@code op}, which returned {@code observed}, in state {@code s}. */
  public Step apply(State s, Op op, Result observed) {
    Objects.requireNonNull(observed, "observed");
    if (op instanceof Op.Claim c) {
      return claims.judge(s, c, observed);
    } else if (op instanceof Op.Heartbeat h) {
      return write(s, h.id(), h.fence(), h.now(), observed, op, "heartbeat");
    } else if (op instanceof Op.Checkpoint c) {
      return write(s, c.id(), c.fence(), c.now(), observed, op, "checkpoint");
    } else if (op instanceof Op.Complete c) {
      return write(s, c.id(), c.fence(), c.now(), observed, op, "complete");
    } else if (op instanceof Op.Release r) {
      return write(s, r.id(), r.fence(), r.now(), observed, op, "release");
    } else if (op instanceof Op.Lookup l) {
      return lookup(s, l, observed);
    } else if (op instanceof Op.FindAbandoned f) {
      return findAbandoned(s, f, observed);
    } else if (op instanceof Op.DeleteExpired d) {
      return deleteExpired(s, d, observed);
    }
    throw new IllegalArgumentException("unknown op " + op);
  }

  private Step write(
      State s, RecordId id, FenceToken fence, Instant now, Result observed, Op op, String what) {
    Rec r = s.record(id);
    if (r != null
        && r.state() == KeyState.IN_FLIGHT
        && r.fence().equals(fence)) { // the owner's write
      if (observed instanceof Result.Ok) {
        return Step.ok(model.afterOwnersWrite(s, r, op));
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
          s.maxFence(id) == 0 ? "the record does not exist" : "the record is " + s.goneBecause(id);
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
      String why = s.maxFence(l.id()) == 0 ? "never claimed" : s.goneBecause(l.id());
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
      return Step.ok(model.afterCompletionSeen(s, l.id(), r, seen));
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
    List<RecordId> eligible = ReferenceModel.abandoned(s, f.now());
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
    Set<RecordId> eligible = ReferenceModel.pastRetention(s, d.now(), d.retention());
    if (del.count() < 0 || del.count() > d.limit()) {
      return Step.fail(Rule.R7_3, "deleteExpired(limit=" + d.limit() + ") returned " + del.count());
    }
    if (del.which() == null) {
      // per-record projection of a concurrent history: each record is deleted iff eligible when the
      // call saw it
      return Step.ok(ReferenceModel.afterPurge(s, eligible));
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
    return Step.ok(ReferenceModel.afterPurge(s, del.which()));
  }
}
