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
 * SPEC.md, section "4. Time: leases and the replay window": leases, takeovers, the replay window
 * and time precision (rules 4.1 to 4.7).
 *
 * <p>{@code KeyStoreContract.TimeRules} runs these tests against the store under test.
 */
interface Section4Time extends ContractFixture {
  @Test
  @DisplayName("Rule 4.1: a lease is live before its end and expired from its end on")
  default void required_4_1_leaseExpiresExactlyAtItsEnd() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
    tl.justBefore(lease);
    verify()
        .inFlight(
            claim(id, FP_A), Rule.R4_1, "a claim just before the lease ends (lease " + lease + ")");
    tl.at(lease);
    ClaimOutcome.Claimed t =
        verify()
            .claimed(
                claim(id, FP_A),
                Rule.R4_1,
                "a claim at the instant the lease ends"
                    + (timing().isRealTime() ? " (plus " + timing().margin() + ")" : ""));
    verify().won(t, Rule.R4_2, "the claim after the lease ended").takeover().fenceAbove(c.fence());
  }

  @Test
  @DisplayName("Rule 4.2: a takeover resumes from the last recovery point, with a larger fence")
  default void required_4_2_takeoverResumesFromTheLastRecoveryPoint() {
    RecordId withPoint = id("with-point");
    RecordId withoutPoint = id("without-point");
    Duration lease = timing().lease();
    ClaimOutcome.Claimed c = claimNew(withPoint, FP_A, lease);
    RecoveryPoint p1 = Samples.point("reserved");
    RecoveryPoint p2 = Samples.point("charged");
    verify()
        .succeeds(
            Rule.R4_6,
            "the owner's first checkpoint",
            () -> store().checkpoint(withPoint, c.fence(), p1, now(), lease));
    Timeline tl = timeline();
    verify()
        .succeeds(
            Rule.R4_6,
            "the owner's second checkpoint",
            () -> store().checkpoint(withPoint, c.fence(), p2, tl.start(), lease));
    ClaimOutcome.Claimed plain = claimNew(withoutPoint, FP_A, lease);
    tl.at(lease);
    Instant takeoverAt = now();
    ClaimOutcome.Claimed t =
        verify().claimed(claim(withPoint, FP_A), Rule.R4_1, "a claim after the lease expired");
    verify().won(t, Rule.R4_2, "the takeover").takeover().resumesFrom(p2);
    verify().won(t, Rule.R3_1, "the takeover").fenceAbove(c.fence());
    RecordSnapshot s = present(withPoint, Rule.R4_2, "after the takeover");
    RecordFacts record =
        verify()
            .record(s, Rule.R4_2, "after the takeover at " + takeoverAt)
            .state(KeyState.IN_FLIGHT)
            .fence(t.fence())
            .fingerprint(FP_A)
            .recoveryPoint(p2);
    if (!timing().isRealTime()) {
      record.leaseExpiresAt(takeoverAt.plus(timing().stableLease()));
    }
    ClaimOutcome.Claimed tp =
        verify()
            .claimed(
                claim(withoutPoint, FP_A),
                Rule.R4_1,
                "a claim after the lease (without a recovery point) expired");
    verify()
        .won(tp, Rule.R4_2, "the takeover of a record without a recovery point")
        .takeover()
        .noResumeFrom()
        .fenceAbove(plain.fence());
  }

  @Test
  @DisplayName(
      "Rule 4.3: past the replay window a completed record counts as absent, whatever the fingerprint")
  default void required_4_3_completedRecordCountsAsAbsentOnceTheWindowPassed() {
    RecordId other = id("other-request");
    RecordId same = id("same-request");
    Duration window = timing().window();
    ClaimOutcome.Claimed co = claimNew(other);
    ClaimOutcome.Claimed cs = claimNew(same);
    StoredResponse ro = Samples.response("other");
    StoredResponse rs = Samples.response("same");
    Timeline tl = timeline();
    complete(other, co.fence(), ro, Rule.R4_3);
    complete(same, cs.fence(), rs, Rule.R4_3);
    tl.started();
    tl.justBefore(window);
    replays(
        claim(store(), same, FP_A, timing().stableLease(), window),
        rs,
        Rule.R4_3,
        "a retry just before the window (" + window + ") passes");
    verify()
        .mismatch(
            claim(store(), other, FP_B, timing().stableLease(), window),
            Rule.R4_3,
            "another request just before the window passes");
    tl.at(window);
    fresh(
        claim(store(), other, FP_B, timing().stableLease(), window),
        co.fence(),
        Rule.R4_3,
        "another request with the same key once the window passed");
    fresh(
        claim(store(), same, FP_A, timing().stableLease(), window),
        cs.fence(),
        Rule.R4_3,
        "the same request once the window passed");
    RecordSnapshot s = present(other, Rule.R4_3, "after the key was reused");
    verify()
        .record(s, Rule.R4_3, "after the key was reused past the window")
        .state(KeyState.IN_FLIGHT)
        .fingerprint(FP_B)
        .noResponse();
  }

  @Test
  @DisplayName("Rule 4.4: the replay window is the one of the claim that asks")
  default void required_4_4_windowIsTheOneOfTheAskingClaim() {
    RecordId id = id("k1");
    Duration shorter = timing().window();
    Duration longer = timing().window().multipliedBy(2);
    ClaimOutcome.Claimed c = claimNew(id);
    StoredResponse response = Samples.response("first");
    Timeline tl = timeline();
    complete(id, c.fence(), response, Rule.R4_4);
    tl.at(shorter);
    replays(
        claim(store(), id, FP_A, timing().stableLease(), longer),
        response,
        Rule.R4_4,
        "a claim with a window of " + longer + ", " + shorter + " after completion");
    fresh(
        claim(store(), id, FP_A, timing().stableLease(), shorter),
        c.fence(),
        Rule.R4_4,
        "a claim with a window of " + shorter + ", " + shorter + " after completion");
  }

  @Test
  @DisplayName("Rule 4.5: heartbeat extends the lease to now + lease")
  default void required_4_5_heartbeatExtendsTheLease() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline claimed = timeline();
    ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
    claimed.at(lease.dividedBy(2));
    Timeline beat = timeline();
    verify()
        .succeeds(
            Rule.R4_5,
            "the owner's heartbeat",
            () -> store().heartbeat(id, c.fence(), beat.start(), lease));
    beat.started();
    if (!timing().isRealTime()) {
      RecordSnapshot s = present(id, Rule.R4_5, "after a heartbeat");
      verify()
          .check(
              s.leaseExpiresAt().equals(Optional.of(beat.start().plus(lease))),
              Rule.R4_5,
              () ->
                  "after a heartbeat at "
                      + beat.start()
                      + " for "
                      + lease
                      + " lookup shows lease expiry "
                      + s.leaseExpiresAt()
                      + ", expected "
                      + beat.start().plus(lease));
    }
    claimed.at(lease);
    verify()
        .inFlight(
            claim(id, FP_A),
            Rule.R4_5,
            "a claim when the original lease ended, before the heartbeat's");
    beat.justBefore(lease);
    verify().inFlight(claim(id, FP_A), Rule.R4_5, "a claim just before the heartbeat's lease ends");
    beat.at(lease);
    ClaimOutcome.Claimed t =
        verify().claimed(claim(id, FP_A), Rule.R4_5, "a claim once the heartbeat's lease ended");
    verify()
        .check(t.takeover(), Rule.R4_2, () -> "expected a takeover, got " + Describe.outcome(t));
  }

  @Test
  @DisplayName("Rule 4.6: checkpoint replaces the recovery point and extends the lease")
  default void required_4_6_checkpointRecordsThePointAndRenewsTheLease() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline claimed = timeline();
    ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
    RecoveryPoint p1 = Samples.point("p1");
    RecoveryPoint p2 = Samples.point("p2");
    verify()
        .succeeds(
            Rule.R4_6,
            "the owner's first checkpoint",
            () -> store().checkpoint(id, c.fence(), p1, claimed.start(), lease));
    verify()
        .check(
            present(id, Rule.R4_6, "after a checkpoint").recoveryPoint().equals(Optional.of(p1)),
            Rule.R4_6,
            () -> "after a checkpoint to p1 lookup shows " + Describe.snapshot(lookup(id)));
    claimed.at(lease.dividedBy(2));
    Timeline point = timeline();
    verify()
        .succeeds(
            Rule.R4_6,
            "the owner's second checkpoint",
            () -> store().checkpoint(id, c.fence(), p2, point.start(), lease));
    point.started();
    RecordSnapshot s = present(id, Rule.R4_6, "after a second checkpoint");
    verify()
        .check(
            s.recoveryPoint().equals(Optional.of(p2)),
            Rule.R4_6,
            () ->
                "after a checkpoint to p2 lookup"
                    + " shows "
                    + Describe.snapshot(s)
                    + ", expected recovery point p2");
    if (!timing().isRealTime()) {
      verify()
          .check(
              s.leaseExpiresAt().equals(Optional.of(point.start().plus(lease))),
              Rule.R4_6,
              () ->
                  "after a checkpoint at "
                      + point.start()
                      + " for "
                      + lease
                      + " lookup shows lease expiry "
                      + s.leaseExpiresAt()
                      + ", expected "
                      + point.start().plus(lease));
    }
    claimed.at(lease);
    verify()
        .inFlight(
            claim(id, FP_A),
            Rule.R4_6,
            "a claim when the original lease ended, before the checkpoint's");
    point.at(lease);
    ClaimOutcome.Claimed t =
        verify()
            .claimed(claim(id, FP_A), Rule.R4_6, "a claim once the checkpoint's lease" + " ended");
    verify()
        .won(t, Rule.R4_2, "a claim once the checkpoint's lease ended")
        .takeover()
        .resumesFrom(p2);
  }

  @Test
  @DisplayName("Rule 4.7: lease expiries and completion times are kept to the millisecond")
  default void required_4_7_timesAreKeptToTheMillisecond() {
    RecordId id = id("k1");
    if (!timing().isRealTime()) {
      clock().set(clock().instant().plusMillis(123));
    }
    Duration lease = Duration.ofMillis(timing().stableLease().toMillis() + 7);
    Instant t0 = now();
    ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
    RecordSnapshot s = present(id, Rule.R4_7, "after a claim");
    if (!timing().isRealTime()) {
      verify()
          .check(
              s.leaseExpiresAt().equals(Optional.of(t0.plus(lease))),
              Rule.R4_7,
              () ->
                  "a claim at "
                      + t0
                      + " for "
                      + lease
                      + " shows lease expiry "
                      + s.leaseExpiresAt()
                      + ", expected "
                      + t0.plus(lease));
      clock().advance(Duration.ofMillis(1_234));
    }
    Instant t1 = now();
    Duration lease2 = Duration.ofMillis(10_001);
    verify()
        .succeeds(
            Rule.R4_5, "the owner's heartbeat", () -> store().heartbeat(id, c.fence(), t1, lease2));
    RecordSnapshot s1 = present(id, Rule.R4_7, "after a heartbeat");
    if (!timing().isRealTime()) {
      verify()
          .check(
              s1.leaseExpiresAt().equals(Optional.of(t1.plus(lease2))),
              Rule.R4_7,
              () ->
                  "a heartbeat at "
                      + t1
                      + " for "
                      + lease2
                      + " shows lease expiry "
                      + s1.leaseExpiresAt()
                      + ", expected "
                      + t1.plus(lease2));
      clock().advance(Duration.ofMillis(2_345));
    }
    Instant t2 = now();
    complete(id, c.fence(), Samples.response("timed"), Rule.R4_7);
    RecordSnapshot s2 = present(id, Rule.R4_7, "after completion");
    ClaimOutcome.Completed replay =
        verify().completed(claim(id, FP_A), Rule.R1_4, "a retry after completion");
    Instant expected = timing().isRealTime() ? s2.completedAt().orElseThrow() : t2;
    verify().record(s2, Rule.R4_7, "after a completion at " + t2).completedAt(expected);
    verify()
        .fact(
            Rule.R4_7,
            "the replay after a completion at " + t2 + ", Completed.completedAt",
            () -> assertThat(replay.completedAt()).isEqualTo(expected));
  }
}
