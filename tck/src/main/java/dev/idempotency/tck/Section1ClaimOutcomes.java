package dev.idempotency.tck;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "1. Claim outcomes": what a claim returns and does, and what lookup shows (rules 1.1 to 1.7).
 *
 * <p>{@code KeyStoreContract.ClaimRules} runs these tests against the store under test.
 */
interface Section1ClaimOutcomes extends ContractFixture {
  @Test
  @DisplayName("Rule 1.1: a claim of a record that does not exist wins it and leaves it IN_FLIGHT")
  default void required_1_1_firstClaimWinsAnAbsentRecord() {
    RecordId id = id("k1");
    absent(id, Rule.R1_7, "before any claim");
    Instant t0 = now();
    ClaimOutcome.Claimed c = claimNew(id, FP_A, timing().stableLease());
    RecordSnapshot s = present(id, Rule.R1_1, "after a won claim");
    verify().check(s.state() == KeyState.IN_FLIGHT && s.fingerprint().equals(FP_A) && s.fence().equals(c.fence())
        && s.recoveryPoint().isEmpty() && s.response().isEmpty() && s.completedAt().isEmpty()
        && s.leaseExpiresAt().isPresent(), Rule.R1_1, () -> "after " + Describe.outcome(c) + " lookup shows "
        + Describe.snapshot(s) + ", expected IN_FLIGHT with the request's fingerprint, " + c.fence()
        + ", a lease and no recovery point");
    if (!timing().isRealTime()) {
      verify().check(s.leaseExpiresAt().get().equals(t0.plus(timing().stableLease())), Rule.R1_1,
          () -> "the lease of a claim at " + t0 + " for " + timing().stableLease() + " should expire at "
              + t0.plus(timing().stableLease()) + ", but lookup shows " + s.leaseExpiresAt().get());
    }
  }

  @Test
  @DisplayName("Rule 1.2: the same request while the lease is live is InFlight and changes nothing")
  default void required_1_2_sameRequestWhileTheLeaseIsLiveIsInFlight() {
    RecordId id = id("k1");
    claimNew(id);
    Optional<RecordSnapshot> before = lookup(id);
    for (int i = 0; i < 3; i++) {
      verify().inFlight(claim(id, FP_A), Rule.R1_2, "claim #" + (i + 2) + " of " + id + " while its lease is live");
    }
    unchanged(id, before, Rule.R1_2, "an InFlight claim");
  }

  @Test
  @DisplayName("Rule 1.3: InFlight reports the lease's remaining time")
  default void required_1_3_inFlightReportsTheRemainingLease() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    claimNew(id, FP_A, lease);
    if (timing().isRealTime()) {
      tl.justBefore(lease);
      ClaimOutcome.InFlight f = verify().inFlight(claim(store(), id, FP_A, lease, timing().stableWindow()), Rule.R1_2,
          "a second claim while the lease is live");
      verify().check(!f.leaseRemaining().isZero() && f.leaseRemaining().compareTo(lease) <= 0, Rule.R1_3,
          () -> "InFlight right after a claim with lease " + lease + " reports " + f.leaseRemaining()
              + " remaining, expected more than 0 and at most " + lease);
    } else {
      clock().set(tl.start().plusMillis(12_345));
      ClaimOutcome.InFlight f = verify().inFlight(claim(store(), id, FP_A, lease, timing().stableWindow()), Rule.R1_2,
          "a second claim 12.345 s into a " + lease + " lease");
      Duration expected = lease.minusMillis(12_345);
      verify().check(f.leaseRemaining().equals(expected), Rule.R1_3, () -> "12.345 s into a " + lease
          + " lease, InFlight reports " + f.leaseRemaining() + " remaining, expected " + expected);
    }
  }

  @Test
  @DisplayName("Rule 1.4: the same request after completion replays the stored response and changes nothing")
  default void required_1_4_sameRequestAfterCompletionReplaysTheResponse() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    StoredResponse response = Samples.response("the first request");
    Instant completedAt = now();
    complete(id, c.fence(), response, Rule.R1_4);
    Optional<RecordSnapshot> before = lookup(id);
    for (int i = 0; i < 3; i++) {
      ClaimOutcome outcome = claim(id, FP_A);
      replays(outcome, response, Rule.R1_4, "a retry of the completed request on " + id);
      Instant replayedAt = ((ClaimOutcome.Completed) outcome).completedAt();
      Instant expected = timing().isRealTime() ? before.flatMap(RecordSnapshot::completedAt).orElseThrow()
          : completedAt;
      verify().check(replayedAt.equals(expected), Rule.R1_4, () -> "Completed.completedAt is " + replayedAt
          + ", but the record completed at " + expected);
    }
    unchanged(id, before, Rule.R1_4, "a replay");
  }

  @Test
  @DisplayName("Rule 1.5: another request on an IN_FLIGHT record is Mismatch and changes nothing")
  default void required_1_5_otherRequestOnAnInFlightRecordIsMismatch() {
    RecordId id = id("k1");
    claimNew(id);
    Optional<RecordSnapshot> before = lookup(id);
    ClaimOutcome.Mismatch m = verify().mismatch(claim(id, FP_B), Rule.R1_5,
        "a claim with another fingerprint of the in-flight " + id);
    verify().check(m.existingState() == KeyState.IN_FLIGHT, Rule.R1_5, () -> "the mismatch reports "
        + m.existingState() + ", expected IN_FLIGHT");
    unchanged(id, before, Rule.R1_5, "a mismatched claim");
  }

  @Test
  @DisplayName("Rule 1.5: another request is Mismatch even after the lease expired, never a takeover")
  default void required_1_5_otherRequestIsMismatchEvenAfterTheLeaseExpired() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
    tl.at(lease);
    Optional<RecordSnapshot> before = lookup(id);
    ClaimOutcome.Mismatch m = verify().mismatch(claim(store(), id, FP_B, timing().stableLease(), timing().stableWindow()),
        Rule.R1_5, "a claim with another fingerprint of " + id + " after its lease expired");
    verify().check(m.existingState() == KeyState.IN_FLIGHT, Rule.R1_5, () -> "the mismatch reports "
        + m.existingState() + ", expected IN_FLIGHT");
    unchanged(id, before, Rule.R1_5, "a mismatched claim of an expired lease");
    ClaimOutcome.Claimed t = verify().claimed(claim(id, FP_A), Rule.R4_2, "the same request after the lease expired");
    verify().check(t.takeover() && t.fence().isNewerThan(c.fence()), Rule.R4_2, () -> "the same request after the"
        + " lease expired returned " + Describe.outcome(t) + ", expected a takeover with a fence > " + c.fence());
  }

  @Test
  @DisplayName("Rule 1.6: another request on a COMPLETE record is Mismatch, never the stored response")
  default void required_1_6_otherRequestOnACompletedRecordIsMismatch() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    StoredResponse response = Samples.response("the first request");
    complete(id, c.fence(), response, Rule.R1_6);
    Optional<RecordSnapshot> before = lookup(id);
    ClaimOutcome.Mismatch m = verify().mismatch(claim(id, FP_B), Rule.R1_6,
        "a claim with another fingerprint of the completed " + id);
    verify().check(m.existingState() == KeyState.COMPLETE, Rule.R1_6, () -> "the mismatch reports "
        + m.existingState() + ", expected COMPLETE");
    unchanged(id, before, Rule.R1_6, "a mismatched claim");
    replays(claim(id, FP_A), response, Rule.R1_6, "the original request after a mismatch");
  }

  @Test
  @DisplayName("Rule 1.7: lookup returns the raw record, also past its lease or window, and changes nothing")
  default void required_1_7_lookupReturnsTheRawRecord() {
    RecordId open = id("open");
    RecordId done = id("done");
    absent(open, Rule.R1_7, "a record never claimed");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed co = claimNew(open, FP_A, lease);
    RecoveryPoint point = Samples.point("charged");
    Instant t0 = tl.start();
    verify().succeeds(Rule.R1_7, "the owner's checkpoint", () -> store().checkpoint(open, co.fence(), point, t0, lease));
    ClaimOutcome.Claimed cd = claimNew(done, FP_B, lease);
    StoredResponse response = Samples.response("done");
    complete(done, cd.fence(), response, Rule.R1_7);
    RecordSnapshot o1 = present(open, Rule.R1_7, "an in-flight record");
    RecordSnapshot d1 = present(done, Rule.R1_7, "a completed record");
    verify().check(o1.state() == KeyState.IN_FLIGHT && o1.fence().equals(co.fence()) && o1.fingerprint().equals(FP_A)
        && o1.recoveryPoint().equals(Optional.of(point)) && o1.leaseExpiresAt().isPresent(), Rule.R1_7,
        () -> "lookup of the in-flight record shows " + Describe.snapshot(o1) + ", expected IN_FLIGHT, "
            + co.fence() + ", its fingerprint and recovery point " + point.name());
    verify().check(d1.state() == KeyState.COMPLETE && d1.fence().equals(cd.fence()) && d1.fingerprint().equals(FP_B)
        && d1.response().isPresent() && Samples.identical(d1.response().get(), response)
        && d1.completedAt().isPresent(), Rule.R1_7, () -> "lookup of the completed record shows "
        + Describe.snapshot(d1) + ", expected COMPLETE with " + cd.fence() + " and " + Describe.response(response));
    if (!timing().isRealTime()) {
      verify().check(o1.leaseExpiresAt().get().equals(t0.plus(lease)) && d1.completedAt().get().equals(t0),
          Rule.R4_7, () -> "lookup shows lease expiry " + o1.leaseExpiresAt().get() + " and completion time "
              + d1.completedAt().get() + ", expected " + t0.plus(lease) + " and " + t0);
    }
    verify().check(lookup(open).equals(Optional.of(o1)) && lookup(done).equals(Optional.of(d1)), Rule.R1_7,
        () -> "two lookups in a row differ");
    tl.at(timing().window().compareTo(lease) > 0 ? timing().window() : lease);
    verify().check(lookup(open).equals(Optional.of(o1)), Rule.R1_7, () -> "past its lease, lookup of the in-flight"
        + " record shows " + Describe.snapshot(lookup(open)) + ", expected it unchanged: " + Describe.snapshot(o1));
    verify().check(lookup(done).equals(Optional.of(d1)), Rule.R1_7, () -> "past its window, lookup of the completed"
        + " record shows " + Describe.snapshot(lookup(done)) + ", expected it unchanged: " + Describe.snapshot(d1));
  }
}
