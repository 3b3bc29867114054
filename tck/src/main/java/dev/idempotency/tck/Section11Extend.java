package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "11. Listing records", rule 11.4: {@code extendRetention} keeps a record past
 * its retention and changes nothing a claim reads, for a store that declares {@link
 * StoreCapability#EXTEND_RETENTION}.
 *
 * <p>{@code KeyStoreContract.ExtendRules} runs this test against the store under test.
 */
interface Section11Extend extends ContractFixture {

  @Test
  @DisplayName(
      "Rule 11.4: extendRetention keeps a record until the instant given and changes nothing a"
          + " claim reads; a wrong fence or an absent record changes nothing")
  default void optional_11_4_extendRetentionKeepsTheRecordAndNothingElse() {
    Assumptions.assumeTrue(
        has(StoreCapability.EXTEND_RETENTION),
        "the store does not declare EXTEND_RETENTION, so it keeps no record past its retention"
            + " (KeyStore.extendRetention refuses)");
    Duration lease = timing().lease();
    Duration window = timing().window();
    Duration retention = timing().retention();
    RecordId done = id("done");
    RecordId abandoned = id("abandoned");
    RecordId replayed = id("replayed");
    RecordId other = id("other");
    RecordId never = id("never-claimed");
    StoredResponse doneResponse = Samples.response("done");
    StoredResponse replayedResponse = Samples.response("replayed");
    Timeline tl = timeline();
    ClaimOutcome.Claimed ca = claimNew(abandoned, FP_A, lease);
    ClaimOutcome.Claimed cd = claimNew(done);
    complete(done, cd.fence(), doneResponse, Rule.R11_4);
    ClaimOutcome.Claimed cr = claimNew(replayed);
    complete(replayed, cr.fence(), replayedResponse, Rule.R11_4);
    ClaimOutcome.Claimed co = claimNew(other);
    complete(other, co.fence(), Samples.response("other"), Rule.R11_4);
    tl.started();
    // kept one retention longer than the abandoned record (whose retention counts from its
    // lease's end) would be kept without the extension, and the completed ones longer still
    Duration keptFor = lease.plus(retention).plus(retention);
    Instant keepUntil = tl.start().plus(keptFor);
    Optional<RecordSnapshot> doneBefore = lookup(done);
    Optional<RecordSnapshot> abandonedBefore = lookup(abandoned);
    Optional<RecordSnapshot> replayedBefore = lookup(replayed);
    Optional<RecordSnapshot> otherBefore = lookup(other);
    extend(done, cd.fence(), keepUntil);
    extend(abandoned, ca.fence(), keepUntil);
    extend(replayed, cr.fence(), keepUntil);
    // an earlier instant afterwards must not shorten what the first call set
    extend(done, cd.fence(), tl.start().plus(lease));
    unchanged(done, doneBefore, Rule.R11_4, "extending the retention of a completed record");
    unchanged(
        abandoned, abandonedBefore, Rule.R11_4, "extending the retention of an in-flight record");
    unchanged(replayed, replayedBefore, Rule.R11_4, "extending the retention of a record");

    FenceToken wrong = FenceToken.of(co.fence().value() + 1);
    verify()
        .leaseLost(
            Rule.R11_4,
            "extendRetention of " + other + " with " + wrong + ", not its fence " + co.fence(),
            () -> store().extendRetention(other, wrong, keepUntil, now()));
    unchanged(other, otherBefore, Rule.R11_4, "an extendRetention with a wrong fence");
    verify()
        .leaseLost(
            Rule.R11_4,
            "extendRetention of " + never + ", which was never claimed",
            () -> store().extendRetention(never, cd.fence(), keepUntil, now()));
    absent(never, Rule.R11_4, "after an extendRetention of a record that was never claimed");

    // the replay window is the completion's, not the extension's
    tl.justBefore(window);
    replays(
        claim(store(), replayed, FP_A, timing().stableLease(), window),
        replayedResponse,
        Rule.R11_4,
        "a claim of " + replayed + " just before its window passed (its retention extended)");
    tl.at(window);
    ClaimOutcome again = claim(store(), replayed, FP_A, timing().stableLease(), window);
    fresh(
        again,
        cr.fence(),
        Rule.R11_4,
        "a claim of " + replayed + " once its window passed (its retention extended)");
    // released, so that the new request's record counts in no deletion below (rule 5.3)
    ClaimOutcome.Claimed newRequest = (ClaimOutcome.Claimed) again;
    verify()
        .succeeds(
            Rule.R5_3,
            "the new request's release of " + replayed,
            () -> store().release(replayed, newRequest.fence(), now()));

    // the lease is the owner's, not the extension's: the abandoned record is abandoned on time
    // (the window ends after the lease, in both of SPEC.md's timings)
    List<RecordSnapshot> found = store().findAbandoned(now(), 100);
    verify()
        .check(
            found.stream().anyMatch(s -> s.id().equals(abandoned)),
            Rule.R11_4,
            () ->
                "once its lease expired, findAbandoned did not find "
                    + abandoned
                    + " (its retention extended): "
                    + Describe.snapshots(found));
    unchanged(abandoned, abandonedBefore, Rule.R11_4, "findAbandoned");

    tl.at(lease.plus(retention));
    int n1 = store().deleteExpired(now(), retention, 100);
    verify()
        .check(
            n1 == 1,
            Rule.R11_4,
            () ->
                "once the retention of the records passed, deleteExpired returned "
                    + n1
                    + ", expected 1 (the record whose extension was refused; the extended ones"
                    + " stay)");
    absent(other, Rule.R11_4, "the record whose extension was refused, past its retention");
    present(done, Rule.R11_4, "a completed record kept past its retention");
    present(abandoned, Rule.R11_4, "an in-flight record kept past its retention");

    tl.justBefore(keptFor);
    int n2 = store().deleteExpired(now(), retention, 100);
    verify()
        .check(
            n2 == 0,
            Rule.R11_4,
            () ->
                "just before the instant the records were kept until, deleteExpired returned "
                    + n2);
    present(
        done, Rule.R11_4, "just before the instant it was kept until (a later call asked less)");
    present(abandoned, Rule.R11_4, "just before the instant it was kept until");

    tl.at(keptFor);
    int n3 = store().deleteExpired(now(), retention, 100);
    verify()
        .check(
            n3 == 2,
            Rule.R11_4,
            () ->
                "at the instant the records were kept until, deleteExpired returned "
                    + n3
                    + ", expected 2 (the completed and the in-flight record)");
    absent(done, Rule.R11_4, "a completed record at the instant it was kept until");
    absent(abandoned, Rule.R11_4, "an in-flight record at the instant it was kept until");
  }

  private void extend(RecordId id, FenceToken fence, Instant keepUntil) {
    verify()
        .succeeds(
            Rule.R11_4,
            "extendRetention of " + id + " with its fence " + fence + " until " + keepUntil,
            () -> store().extendRetention(id, fence, keepUntil, now()));
  }
}
