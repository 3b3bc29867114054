package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "7. Retention, the reaper and abandoned records": deleteExpired and
 * findAbandoned (rules 7.1 to 7.5).
 *
 * <p>{@code KeyStoreContract.RetentionRules} runs these tests against the store under test.
 */
interface Section7Retention extends ContractFixture {
  @Test
  @DisplayName(
      "Rule 7.1: a completed record is deleted once completedAt + retention <= now, and not before")
  default void required_7_1_completedRecordIsDeletedOnceRetentionPassed() {
    RecordId id = id("k1");
    Duration retention = timing().retention();
    ClaimOutcome.Claimed c = claimNew(id);
    Timeline tl = timeline();
    complete(id, c.fence(), Samples.response("kept"), Rule.R7_1);
    tl.started();
    tl.at(timing().window());
    int n0 = store().deleteExpired(now(), retention, 10);
    verify()
        .check(
            n0 == 0,
            Rule.R7_1,
            () -> "past the window but within retention, deleteExpired returned " + n0);
    present(id, Rule.R7_1, "past the window but within retention");
    tl.justBefore(retention);
    int n1 = store().deleteExpired(now(), retention, 10);
    verify()
        .check(
            n1 == 0, Rule.R7_1, () -> "just before retention passed, deleteExpired returned " + n1);
    present(id, Rule.R7_1, "just before retention passed");
    tl.at(retention);
    int n2 = store().deleteExpired(now(), retention, 10);
    verify()
        .check(
            n2 == 1,
            Rule.R7_1,
            () -> "once retention passed, deleteExpired returned " + n2 + ", expected 1");
    absent(id, Rule.R7_1, "once retention passed and deleteExpired ran");
  }

  @Test
  @DisplayName(
      "Rule 7.2: an in-flight record is deleted once its lease expired retention ago, never while live")
  default void required_7_2_abandonedRecordIsDeletedOnceItsLeaseExpiredRetentionAgo() {
    RecordId abandoned = id("abandoned");
    Duration lease = timing().lease();
    Duration retention = timing().retention();
    Timeline tl = timeline();
    claimNew(abandoned, FP_A, lease);
    tl.at(lease);
    RecordId live = id("live");
    claimNew(live, FP_A, timing().stableLease().plus(retention).plus(retention));
    int n0 = store().deleteExpired(now(), retention, 10);
    verify()
        .check(
            n0 == 0, Rule.R7_2, () -> "right after a lease expired, deleteExpired returned " + n0);
    tl.justBefore(lease.plus(retention));
    int n1 = store().deleteExpired(now(), retention, 10);
    verify()
        .check(
            n1 == 0,
            Rule.R7_2,
            () -> "just before the lease expired retention ago, deleteExpired returned " + n1);
    present(abandoned, Rule.R7_2, "just before the lease expired retention ago");
    tl.at(lease.plus(retention));
    int n2 = store().deleteExpired(now(), retention, 10);
    verify()
        .check(
            n2 == 1,
            Rule.R7_2,
            () ->
                "once the lease expired retention ago, deleteExpired returned "
                    + n2
                    + ", expected 1 (the abandoned record; the live one stays)");
    absent(abandoned, Rule.R7_2, "once the lease expired retention ago");
    present(live, Rule.R7_2, "a live record");
  }

  @Test
  @DisplayName(
      "Rule 7.3: deleteExpired works in bounded batches that drain, and spares records within retention")
  default void required_7_3_deleteExpiredWorksInBoundedBatches() {
    Duration retention = timing().retention();
    Timeline tl = timeline();
    List<RecordId> old = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      RecordId id = id("old-" + i);
      old.add(id);
      complete(id, claimNew(id).fence(), Samples.response("old " + i), Rule.R7_3);
    }
    tl.started();
    tl.at(retention);
    // the spared records are completed only once the old ones are eligible: in real time the
    // batches below then have a whole retention, not a part of it, before these become eligible
    Timeline sparedFrom = timeline();
    List<RecordId> recent = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      RecordId id = id("recent-" + i);
      recent.add(id);
      complete(id, claimNew(id).fence(), Samples.response("recent " + i), Rule.R7_3);
    }
    RecordId live = id("live");
    claimNew(live);
    List<Integer> counts = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      counts.add(store().deleteExpired(now(), retention, 2));
    }
    // the counts prove something only if the recent records were still within retention
    sparedFrom.justBefore(retention);
    verify()
        .check(
            counts.equals(List.of(2, 2, 1, 0)),
            Rule.R7_3,
            () ->
                "with 5 records past retention, four calls"
                    + " of deleteExpired(limit=2) returned "
                    + counts
                    + ", expected [2, 2, 1, 0]");
    for (RecordId id : old) {
      absent(id, Rule.R7_3, "a record past retention after the batches drained");
    }
    for (RecordId id : recent) {
      present(id, Rule.R7_1, "a record completed less than retention ago");
    }
    present(live, Rule.R7_2, "a live record");
  }

  @Test
  @DisplayName("Rule 7.4: a purged record counts as absent")
  default void required_7_4_purgedRecordCountsAsAbsent() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    Timeline tl = timeline();
    complete(id, c.fence(), Samples.response("purged"), Rule.R7_4);
    tl.at(timing().retention());
    int n = store().deleteExpired(now(), timing().retention(), 10);
    verify()
        .check(
            n == 1,
            Rule.R7_1,
            () -> "once retention passed, deleteExpired returned " + n + ", expected 1");
    absent(id, Rule.R7_4, "after the purge");
    fresh(claim(id, FP_B), c.fence(), Rule.R7_4, "another request with the purged key");
  }

  @Test
  @DisplayName(
      "Rule 7.5: findAbandoned returns expired in-flight records, oldest lease first, up to limit")
  default void required_7_5_findAbandonedReturnsExpiredLeasesOldestFirst() {
    Duration lease = timing().lease();
    RecordId late = id("late");
    RecordId early = id("early");
    RecordId done = id("done");
    Timeline tl = timeline();
    ClaimOutcome.Claimed cl = claimNew(late, FP_A, lease.multipliedBy(2));
    ClaimOutcome.Claimed ce = claimNew(early, FP_B, lease);
    ClaimOutcome.Claimed cd = claimNew(done, FP_A, lease);
    verify()
        .succeeds(
            Rule.R4_6,
            "a checkpoint",
            () -> store().checkpoint(early, ce.fence(), Samples.point("p"), tl.start(), lease));
    complete(done, cd.fence(), Samples.response("done"), Rule.R7_5);
    tl.justBefore(lease);
    List<RecordSnapshot> none = store().findAbandoned(now(), 10);
    verify()
        .check(
            none.isEmpty(),
            Rule.R7_5,
            () -> "before any lease expired findAbandoned returned " + Describe.snapshots(none));
    tl.at(lease);
    List<RecordSnapshot> one = store().findAbandoned(now(), 10);
    verify()
        .fact(
            Rule.R7_5,
            "once the lease of "
                + early
                + " expired"
                + (timing().isRealTime() ? "" : " (exactly now)")
                + ", the records findAbandoned returned, "
                + Describe.snapshots(one),
            () -> assertThat(idsOf(one)).containsExactly(early));
    RecordSnapshot snap = one.get(0);
    verify()
        .record(snap, Rule.R7_5, "findAbandoned's snapshot of " + early)
        .state(KeyState.IN_FLIGHT)
        .fence(ce.fence())
        .fingerprint(FP_B)
        .recoveryPoint(Samples.point("p"));
    RecordSnapshot looked = present(early, Rule.R7_5, "an abandoned record");
    verify()
        .fact(
            Rule.R7_5,
            "findAbandoned's snapshot of " + early + " against lookup's",
            () -> assertThat(snap).isEqualTo(looked));
    tl.at(lease.multipliedBy(2));
    RecordId live = id("live");
    claimNew(live);
    List<RecordSnapshot> two = store().findAbandoned(now(), 10);
    verify()
        .fact(
            Rule.R7_5,
            "with two expired leases, the records findAbandoned returned (oldest lease first), "
                + Describe.snapshots(two),
            () -> assertThat(idsOf(two)).containsExactly(early, late));
    List<RecordSnapshot> first = store().findAbandoned(now(), 1);
    verify()
        .fact(
            Rule.R7_5,
            "the records findAbandoned(limit=1) returned (only the oldest), "
                + Describe.snapshots(first),
            () -> assertThat(idsOf(first)).containsExactly(early));
    ClaimOutcome.Claimed t =
        verify()
            .claimed(
                claim(late, FP_A),
                Rule.R7_5,
                "a takeover of a record findAbandoned" + " returned (findAbandoned only reads)");
    verify()
        .won(t, Rule.R4_2, "a claim of " + late + " after its lease expired")
        .takeover()
        .fenceAbove(cl.fence());
  }

  private static List<RecordId> idsOf(List<RecordSnapshot> snapshots) {
    return snapshots.stream().map(RecordSnapshot::id).toList();
  }
}
