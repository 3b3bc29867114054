package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.ConcurrencyGate;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Knobs;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "3. Fencing": fence tokens and fenced writes (rules 3.1 to 3.6).
 *
 * <p>{@code KeyStoreContract.FencingRules} runs these tests against the store under test.
 */
interface Section3Fencing extends ContractFixture {
  @Test
  @DisplayName("Rule 3.1: a takeover's fence is greater than the previous owner's")
  default void required_3_1_fenceGrowsOnTakeover() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed first = claimNew(id, FP_A, lease);
    tl.at(lease);
    ClaimOutcome.Claimed second =
        verify().claimed(claim(id, FP_A), Rule.R4_1, "a claim after the lease expired");
    verify()
        .check(
            second.fence().isNewerThan(first.fence()),
            Rule.R3_1,
            () ->
                "the takeover's fence "
                    + second.fence()
                    + " is not greater than the first owner's "
                    + first.fence());
    RecordSnapshot s = present(id, Rule.R1_7, "after the takeover");
    verify()
        .check(
            s.fence().equals(second.fence()),
            Rule.R1_7,
            () -> "after the takeover lookup shows " + s.fence() + ", expected " + second.fence());
  }

  @Test
  @DisplayName("Rule 3.1: fences keep growing across releases")
  default void required_3_1_fenceGrowsAcrossRelease() {
    RecordId id = id("k1");
    FenceToken previous = null;
    for (int i = 0; i < 4; i++) {
      Fingerprint fp = i % 2 == 0 ? FP_A : FP_B;
      ClaimOutcome outcome = claim(id, fp);
      fresh(
          outcome,
          previous,
          Rule.R5_3,
          "claim #" + (i + 1) + " of " + id + (i == 0 ? "" : " after a release"));
      FenceToken fence = ((ClaimOutcome.Claimed) outcome).fence();
      verify()
          .succeeds(
              Rule.R5_3,
              "the owner's release with " + fence,
              () -> store().release(id, fence, now()));
      previous = fence;
    }
  }

  @Test
  @DisplayName("Rule 3.1: fences keep growing when a completed record's window passes")
  default void required_3_1_fenceGrowsAcrossWindowExpiry() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed first = claimNew(id);
    Timeline tl = timeline();
    complete(id, first.fence(), Samples.response("first"), Rule.R1_4);
    tl.at(timing().window());
    fresh(
        claim(store(), id, FP_A, timing().stableLease(), timing().window()),
        first.fence(),
        Rule.R4_3,
        "a claim after the window of the completed " + id + " passed");
  }

  @Test
  @DisplayName("Rule 3.1: fences keep growing after the record was purged")
  default void required_3_1_fenceGrowsAcrossPurge() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed first = claimNew(id, FP_A, lease);
    verify()
        .succeeds(
            Rule.R4_6,
            "the owner's checkpoint",
            () -> store().checkpoint(id, first.fence(), Samples.point("p1"), tl.start(), lease));
    tl.at(lease.plus(timing().retention()));
    int n = store().deleteExpired(now(), timing().retention(), 10);
    verify()
        .check(
            n == 1,
            Rule.R7_2,
            () ->
                "deleteExpired after an abandoned lease expired retention ago returned "
                    + n
                    + ", expected 1");
    absent(id, Rule.R7_4, "after the purge");
    fresh(claim(id, FP_A), first.fence(), Rule.R7_4, "a claim of the purged " + id);
  }

  @Test
  @DisplayName(
      "Rule 3.1: in concurrent claim/release cycles each fence exceeds every one released before")
  default void required_3_1_fenceGrowsAcrossConcurrentReleases() throws Exception {
    try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock(), timing(), verify(), 8)) {
      gate.claimReleaseCycles(8, Knobs.rounds() * 10);
    }
  }

  @Test
  @DisplayName("Rule 3.2: after a takeover the old owner's writes are refused and change nothing")
  default void required_3_2_staleOwnerCannotWriteAfterATakeover() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed old = claimNew(id, FP_A, lease);
    RecoveryPoint p1 = Samples.point("p1");
    verify()
        .succeeds(
            Rule.R4_6,
            "the owner's checkpoint",
            () -> store().checkpoint(id, old.fence(), p1, tl.start(), lease));
    tl.at(lease);
    ClaimOutcome.Claimed current =
        verify().claimed(claim(id, FP_A), Rule.R4_1, "a claim after the lease expired");
    Optional<RecordSnapshot> before = lookup(id);
    FenceToken stale = old.fence();
    verify()
        .leaseLost(
            Rule.R3_2,
            "the old owner's heartbeat with " + stale,
            () -> store().heartbeat(id, stale, now(), timing().stableLease()));
    verify()
        .leaseLost(
            Rule.R3_2,
            "the old owner's checkpoint with " + stale,
            () ->
                store()
                    .checkpoint(id, stale, Samples.point("stale"), now(), timing().stableLease()));
    verify()
        .leaseLost(
            Rule.R3_2,
            "the old owner's complete with " + stale,
            () -> store().complete(id, stale, Samples.response("stale owner"), now()));
    verify()
        .leaseLost(
            Rule.R3_2,
            "the old owner's release with " + stale,
            () -> store().release(id, stale, now()));
    unchanged(id, before, Rule.R3_2, "the old owner's refused writes");
    verify()
        .inFlight(
            claim(id, FP_A),
            Rule.R3_2,
            "a claim after the old owner's refused writes (the new owner"
                + " still holds the record)");
    StoredResponse response = Samples.response("new owner");
    verify()
        .succeeds(
            Rule.R3_2,
            "the new owner's complete with " + current.fence(),
            () -> store().complete(id, current.fence(), response, now()));
    replays(claim(id, FP_A), response, Rule.R3_2, "a claim after the new owner completed");
  }

  @Test
  @DisplayName("Rule 3.3: an owner whose lease expired but was not taken over can still write")
  default void required_3_3_ownerWhoseLeaseExpiredCanWriteUntilTakenOver() {
    RecordId beat = id("beat");
    RecordId done = id("done");
    RecordId gone = id("gone");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed cb = claimNew(beat, FP_A, lease);
    ClaimOutcome.Claimed cd = claimNew(done, FP_A, lease);
    ClaimOutcome.Claimed cg = claimNew(gone, FP_A, lease);
    tl.at(lease);
    verify()
        .succeeds(
            Rule.R3_3,
            "heartbeat with the current fence after the lease expired",
            () -> store().heartbeat(beat, cb.fence(), now(), timing().stableLease()));
    verify()
        .succeeds(
            Rule.R3_3,
            "checkpoint with the current fence after the lease expired",
            () ->
                store()
                    .checkpoint(
                        beat, cb.fence(), Samples.point("late"), now(), timing().stableLease()));
    verify()
        .inFlight(
            claim(beat, FP_A), Rule.R4_5, "a claim after the late heartbeat renewed the lease");
    StoredResponse response = Samples.response("late");
    verify()
        .succeeds(
            Rule.R3_3,
            "complete with the current fence after the lease expired",
            () -> store().complete(done, cd.fence(), response, now()));
    replays(claim(done, FP_A), response, Rule.R3_3, "a claim after the late completion");
    verify()
        .succeeds(
            Rule.R3_3,
            "release with the current fence after the lease expired",
            () -> store().release(gone, cg.fence(), now()));
    absent(gone, Rule.R5_3, "after the late release");
  }

  @Test
  @DisplayName(
      "Rule 3.4: writes to an absent record or with a fence never issued are refused and change nothing")
  default void required_3_4_writesWithoutTheCurrentFenceChangeNothing() {
    RecordId never = id("never");
    FenceToken one = FenceToken.of(1);
    writesRefused(never, one, "a record never claimed");
    absent(never, Rule.R3_4, "after writes to a record never claimed");

    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    Optional<RecordSnapshot> before = lookup(id);
    FenceToken above = FenceToken.of(c.fence().value() + 1);
    writesRefused(id, above, "the in-flight record, whose fence is " + c.fence());
    if (c.fence().value() > 1) {
      writesRefused(
          id,
          FenceToken.of(c.fence().value() - 1),
          "the in-flight record, whose fence is " + c.fence());
    }
    unchanged(id, before, Rule.R3_4, "writes with a fence never issued for the record");

    verify()
        .succeeds(Rule.R5_3, "the owner's release", () -> store().release(id, c.fence(), now()));
    writesRefused(id, c.fence(), "the released record");
    absent(id, Rule.R3_4, "after writes to a released record");
  }

  @Test
  @DisplayName(
      "Rule 3.5: heartbeatAll renews the current owners and reports exactly the refused ones")
  default void required_3_5_heartbeatAllRenewsOwnersAndReportsTheRefused() {
    Duration lease = timing().lease();
    Timeline tl = timeline();
    RecordId live = id("live");
    RecordId taken = id("taken");
    RecordId done = id("done");
    RecordId released = id("released");
    RecordId never = id("never");
    ClaimOutcome.Claimed cl = claimNew(live, FP_A, lease);
    ClaimOutcome.Claimed ct = claimNew(taken, FP_A, lease);
    ClaimOutcome.Claimed cd = claimNew(done, FP_A, lease);
    ClaimOutcome.Claimed cr = claimNew(released, FP_A, lease);
    complete(done, cd.fence(), Samples.response("done"), Rule.R1_4);
    verify()
        .succeeds(
            Rule.R5_3, "the owner's release", () -> store().release(released, cr.fence(), now()));
    tl.at(lease.dividedBy(2));
    Map<RecordId, FenceToken> leases = new HashMap<>();
    leases.put(live, cl.fence());
    leases.put(done, cd.fence());
    leases.put(released, cr.fence());
    leases.put(never, FenceToken.of(1));
    verify()
        .check(
            store().heartbeatAll(Map.of(), now(), lease).isEmpty(),
            Rule.R3_5,
            () -> "heartbeatAll of no leases returned records");
    // the first owner of "taken" loses it: its lease is left to expire and another claim takes it
    // over
    Map<RecordId, FenceToken> liveOnly = Map.of(live, cl.fence());
    Set<RecordId> none = store().heartbeatAll(liveOnly, now(), lease);
    verify()
        .check(
            none.isEmpty(), Rule.R3_5, () -> "heartbeatAll of the one live owner refused " + none);
    Timeline beat = timeline();
    tl.at(lease);
    verify()
        .claimed(claim(taken, FP_A), Rule.R4_2, "a claim of " + taken + " after its lease expired");
    leases.put(taken, ct.fence());
    Map<RecordId, Optional<RecordSnapshot>> before = new HashMap<>();
    for (RecordId r : List.of(taken, done, released, never)) {
      before.put(r, lookup(r));
    }
    Timeline again = timeline();
    Set<RecordId> refused = store().heartbeatAll(leases, again.start(), lease);
    verify()
        .check(
            refused.equals(Set.of(taken, done, released, never)),
            Rule.R3_5,
            () ->
                "heartbeatAll of a live owner, a stale one, a completed, a released and a never-claimed record"
                    + " refused "
                    + refused
                    + ", expected all but "
                    + live);
    before.forEach(
        (r, snapshot) -> unchanged(r, snapshot, Rule.R3_5, "a refused entry of heartbeatAll"));
    beat.at(lease);
    verify()
        .inFlight(
            claim(live, FP_A),
            Rule.R3_5,
            "a claim after the lease of the first renewal ended, before" + " the second renewal's");
    again.at(lease);
    ClaimOutcome.Claimed t =
        verify().claimed(claim(live, FP_A), Rule.R3_5, "a claim once the renewed lease ended");
    verify()
        .check(t.takeover(), Rule.R4_2, () -> "expected a takeover, got " + Describe.outcome(t));
  }

  @Test
  @DisplayName("Rule 3.6: takeovers keep the request's generation; a new request begins its own")
  default void required_3_6_takeoversKeepTheGenerationNewRequestsBeginTheirOwn() {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = timeline();
    ClaimOutcome.Claimed first = claimNew(id, FP_A, lease);
    verify().won(first, Rule.R3_6, "the first claim").generation(first.fence());
    tl.at(lease);
    ClaimOutcome.Claimed second =
        verify()
            .claimed(
                claim(store(), id, FP_A, lease, timing().window()),
                Rule.R4_2,
                "a claim after the lease expired");
    Timeline tl2 = timeline();
    tl2.at(lease);
    ClaimOutcome.Claimed third =
        verify().claimed(claim(id, FP_A), Rule.R4_2, "a claim after the second lease" + " expired");
    for (ClaimOutcome.Claimed t : List.of(second, third)) {
      verify()
          .won(t, Rule.R3_6, "a takeover (the request began with " + first.fence() + ")")
          .takeover()
          .generation(first.fence());
    }
    verify()
        .succeeds(
            Rule.R5_3, "the owner's release", () -> store().release(id, third.fence(), now()));
    ClaimOutcome.Claimed again =
        verify().claimed(claim(id, FP_A), Rule.R5_3, "a claim after the release");
    verify()
        .won(again, Rule.R3_6, "a claim after the release")
        .notTakeover()
        .generation(again.fence());
  }

  private void writesRefused(RecordId id, FenceToken fence, String what) {
    verify()
        .leaseLost(
            Rule.R3_4,
            "heartbeat with " + fence + " on " + what,
            () -> store().heartbeat(id, fence, now(), timing().stableLease()));
    verify()
        .leaseLost(
            Rule.R3_4,
            "checkpoint with " + fence + " on " + what,
            () -> store().checkpoint(id, fence, Samples.point("x"), now(), timing().stableLease()));
    verify()
        .leaseLost(
            Rule.R3_4,
            "complete with " + fence + " on " + what,
            () -> store().complete(id, fence, Samples.response("x"), now()));
    verify()
        .leaseLost(
            Rule.R3_4,
            "release with " + fence + " on " + what,
            () -> store().release(id, fence, now()));
  }
}
