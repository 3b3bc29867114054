package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.RecordFacts;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "1. Claim outcomes": what a claim returns and does, and what lookup shows (rules
 * 1.1 to 1.7).
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
    RecordFacts record =
        verify()
            .record(s, Rule.R1_1, "after the won claim " + Describe.outcome(c))
            .state(KeyState.IN_FLIGHT)
            .fingerprint(FP_A)
            .fence(c.fence())
            .leased()
            .noRecoveryPoint()
            .noResponse()
            .notCompleted();
    if (!timing().isRealTime()) {
      record.leaseExpiresAt(t0.plus(timing().stableLease()));
    }
  }

  @Test
  @DisplayName("Rule 1.2: the same request while the lease is live is InFlight and changes nothing")
  default void required_1_2_sameRequestWhileTheLeaseIsLiveIsInFlight() {
    RecordId id = id("k1");
    claimNew(id);
    Optional<RecordSnapshot> before = lookup(id);
    for (int i = 0; i < 3; i++) {
      verify()
          .inFlight(
              claim(id, FP_A),
              Rule.R1_2,
              "claim #" + (i + 2) + " of " + id + " while its lease is live");
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
      ClaimOutcome.InFlight f =
          verify()
              .inFlight(
                  claim(store(), id, FP_A, lease, timing().stableWindow()),
                  Rule.R1_2,
                  "a second claim while the lease is live");
      String situation =
          "InFlight right after a claim with lease " + lease + ", its leaseRemaining";
      verify().fact(Rule.R1_3, situation, () -> assertThat(f.leaseRemaining()).isPositive());
      verify()
          .fact(
              Rule.R1_3,
              situation,
              () -> assertThat(f.leaseRemaining()).isLessThanOrEqualTo(lease));
    } else {
      clock().set(tl.start().plusMillis(12_345));
      ClaimOutcome.InFlight f =
          verify()
              .inFlight(
                  claim(store(), id, FP_A, lease, timing().stableWindow()),
                  Rule.R1_2,
                  "a second claim 12.345 s into a " + lease + " lease");
      Duration expected = lease.minusMillis(12_345);
      verify()
          .check(
              f.leaseRemaining().equals(expected),
              Rule.R1_3,
              () ->
                  "12.345 s into a "
                      + lease
                      + " lease, InFlight reports "
                      + f.leaseRemaining()
                      + " remaining, expected "
                      + expected);
    }
  }

  @Test
  @DisplayName(
      "Rule 1.4: the same request after completion replays the stored response and changes nothing")
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
      Instant expected =
          timing().isRealTime()
              ? before.flatMap(RecordSnapshot::completedAt).orElseThrow()
              : completedAt;
      verify()
          .check(
              replayedAt.equals(expected),
              Rule.R1_4,
              () ->
                  "Completed.completedAt is "
                      + replayedAt
                      + ", but the record completed at "
                      + expected);
    }
    unchanged(id, before, Rule.R1_4, "a replay");
  }

  @Test
  @DisplayName("Rule 1.5: another request on an IN_FLIGHT record is Mismatch and changes nothing")
  default void required_1_5_otherRequestOnAnInFlightRecordIsMismatch() {
    RecordId id = id("k1");
    claimNew(id);
    Optional<RecordSnapshot> before = lookup(id);
    ClaimOutcome.Mismatch m =
        verify()
            .mismatch(
                claim(id, FP_B),
                Rule.R1_5,
                "a claim with another fingerprint of the in-flight " + id);
    verify()
        .check(
            m.existingState() == KeyState.IN_FLIGHT,
            Rule.R1_5,
            () -> "the mismatch reports " + m.existingState() + ", expected IN_FLIGHT");
    unchanged(id, before, Rule.R1_5, "a mismatched claim");
  }

  @Test
  @DisplayName(
      "Rule 1.5: another request is Mismatch even after the lease expired, never a takeover")
  default void required_1_5_otherRequestIsMismatchEvenAfterTheLeaseExpired() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
    tl.at(lease);
    Optional<RecordSnapshot> before = lookup(id);
    ClaimOutcome.Mismatch m =
        verify()
            .mismatch(
                claim(store(), id, FP_B, timing().stableLease(), timing().stableWindow()),
                Rule.R1_5,
                "a claim with another fingerprint of " + id + " after its lease expired");
    verify()
        .check(
            m.existingState() == KeyState.IN_FLIGHT,
            Rule.R1_5,
            () -> "the mismatch reports " + m.existingState() + ", expected IN_FLIGHT");
    unchanged(id, before, Rule.R1_5, "a mismatched claim of an expired lease");
    String retry = "the same request after the lease expired";
    ClaimOutcome.Claimed t = verify().claimed(claim(id, FP_A), Rule.R4_2, retry);
    verify().won(t, Rule.R4_2, retry).takeover().fenceAbove(c.fence());
  }

  @Test
  @DisplayName(
      "Rule 1.6: another request on a COMPLETE record is Mismatch, never the stored response")
  default void required_1_6_otherRequestOnACompletedRecordIsMismatch() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    StoredResponse response = Samples.response("the first request");
    complete(id, c.fence(), response, Rule.R1_6);
    Optional<RecordSnapshot> before = lookup(id);
    ClaimOutcome.Mismatch m =
        verify()
            .mismatch(
                claim(id, FP_B),
                Rule.R1_6,
                "a claim with another fingerprint of the completed " + id);
    verify()
        .check(
            m.existingState() == KeyState.COMPLETE,
            Rule.R1_6,
            () -> "the mismatch reports " + m.existingState() + ", expected COMPLETE");
    unchanged(id, before, Rule.R1_6, "a mismatched claim");
    replays(claim(id, FP_A), response, Rule.R1_6, "the original request after a mismatch");
  }

  @Test
  @DisplayName(
      "Rule 1.7: lookup returns the raw record, also past its lease or window, and changes nothing")
  default void required_1_7_lookupReturnsTheRawRecord() {
    RecordId open = id("open");
    RecordId done = id("done");
    absent(open, Rule.R1_7, "a record never claimed");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed co = claimNew(open, FP_A, lease);
    RecoveryPoint point = Samples.point("charged");
    Instant t0 = tl.start();
    verify()
        .succeeds(
            Rule.R1_7,
            "the owner's checkpoint",
            () -> store().checkpoint(open, co.fence(), point, t0, lease));
    ClaimOutcome.Claimed cd = claimNew(done, FP_B, lease);
    StoredResponse response = Samples.response("done");
    complete(done, cd.fence(), response, Rule.R1_7);
    RecordSnapshot o1 = present(open, Rule.R1_7, "an in-flight record");
    RecordSnapshot d1 = present(done, Rule.R1_7, "a completed record");
    verify()
        .record(o1, Rule.R1_7, "lookup of the in-flight record")
        .state(KeyState.IN_FLIGHT)
        .fence(co.fence())
        .fingerprint(FP_A)
        .recoveryPoint(point)
        .leased();
    verify()
        .record(d1, Rule.R1_7, "lookup of the completed record")
        .state(KeyState.COMPLETE)
        .fence(cd.fence())
        .fingerprint(FP_B)
        .response(response)
        .completed();
    if (!timing().isRealTime()) {
      verify()
          .record(o1, Rule.R4_7, "lookup of the in-flight record")
          .leaseExpiresAt(t0.plus(lease));
      verify().record(d1, Rule.R4_7, "lookup of the completed record").completedAt(t0);
    }
    verify()
        .fact(
            Rule.R1_7,
            "a second lookup of the in-flight record",
            () -> assertThat(lookup(open)).contains(o1));
    verify()
        .fact(
            Rule.R1_7,
            "a second lookup of the completed record",
            () -> assertThat(lookup(done)).contains(d1));
    tl.at(timing().window().compareTo(lease) > 0 ? timing().window() : lease);
    verify()
        .check(
            lookup(open).equals(Optional.of(o1)),
            Rule.R1_7,
            () ->
                "past its lease, lookup of the in-flight"
                    + " record shows "
                    + Describe.snapshot(lookup(open))
                    + ", expected it unchanged: "
                    + Describe.snapshot(o1));
    verify()
        .check(
            lookup(done).equals(Optional.of(d1)),
            Rule.R1_7,
            () ->
                "past its window, lookup of the completed"
                    + " record shows "
                    + Describe.snapshot(lookup(done))
                    + ", expected it unchanged: "
                    + Describe.snapshot(d1));
  }
}
