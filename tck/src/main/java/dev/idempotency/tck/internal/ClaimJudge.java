package dev.idempotency.tck.internal;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.tck.internal.ModelJudge.Step;
import dev.idempotency.tck.internal.ReferenceModel.Rec;
import dev.idempotency.tck.internal.ReferenceModel.State;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link ModelJudge}'s part for {@code claim}: which of the claim's outcomes the record's state
 * in the {@link ReferenceModel} calls for (a fresh claim, a mismatch, in flight, a takeover, a
 * replay), and whether the store's answer is that one.
 */
final class ClaimJudge {
  private final ReferenceModel model;
  private final boolean exactTime;

  ClaimJudge(ReferenceModel model) {
    this.model = model;
    this.exactTime = model.exactTime();
  }

  /** Judges the claim {@code c}, which returned {@code observed}, in state {@code s}. */
  Step judge(State s, Op.Claim c, Result observed) {
    RecordId id = c.id();
    Rec r = s.record(id);
    long max = s.maxFence(id);
    Instant windowEnd = ReferenceModel.windowEnd(r, c.window());
    boolean windowPassed = windowEnd != null && !c.now().isBefore(windowEnd);
    if (r == null || windowPassed) {
      Rule rule =
          windowPassed
              ? Rule.R4_3
              : max == 0 ? Rule.R1_1 : "purged".equals(s.goneBecause(id)) ? Rule.R7_4 : Rule.R5_3;
      String situation =
          windowPassed
              ? "the record completed at "
                  + Objects.requireNonNull(r).completedAt()
                  + " and the window "
                  + c.window()
                  + " passed at "
                  + windowEnd
                  + ", so the claim at "
                  + c.now()
                  + " is a new request"
              : max == 0 ? "the record does not exist" : "the record was " + s.goneBecause(id);
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
      return Step.ok(model.afterFreshClaim(s, c, cl.fence()));
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
      return Step.ok(model.afterTakeover(s, r, c, cl.fence()));
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
      return Step.ok(model.afterCompletionSeen(s, id, r, done.completedAt()));
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
}
