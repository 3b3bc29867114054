package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "11. Listing records": list by selection, in pages, in one scope or all (rules
 * 11.1 to 11.3), for a store that declares {@link StoreCapability#LISTING}.
 *
 * <p>{@code KeyStoreContract.ListingRules} runs these tests against the store under test.
 */
interface Section11Listing extends ContractFixture {
  /** More pages than any listing here needs: a cursor that never ends fails instead of looping. */
  int MAX_PAGES = 50;

  private void requireListing() {
    Assumptions.assumeTrue(
        has(StoreCapability.LISTING),
        "the store does not declare LISTING, so it lists no records (KeyStore.list refuses)");
  }

  /** Every record of {@code query}, following the cursors; each page checked against rule 11.2. */
  private List<RecordSnapshot> listAll(RecordQuery query) {
    List<RecordSnapshot> all = new ArrayList<>();
    RecordQuery next = query;
    for (int pages = 1; ; pages++) {
      RecordPage page = store().list(next);
      int size = page.records().size();
      int page1 = pages;
      verify()
          .check(
              size <= query.limit(),
              Rule.R11_2,
              () ->
                  "page "
                      + page1
                      + " of "
                      + query
                      + " held "
                      + size
                      + " records, more than the limit");
      all.addAll(page.records());
      if (page.next().isEmpty()) {
        return all;
      }
      verify()
          .check(
              pages < MAX_PAGES,
              Rule.R11_2,
              () -> "after " + MAX_PAGES + " pages of " + query + " the cursor still went on");
      next = next.after(page.next().get());
    }
  }

  private static List<RecordId> idsOf(List<RecordSnapshot> snapshots) {
    return snapshots.stream().map(RecordSnapshot::id).toList();
  }

  @Test
  @DisplayName(
      "Rule 11.1: list returns exactly the records of the selection at now, as lookup does, and"
          + " changes nothing")
  default void optional_11_1_listReturnsExactlyTheRecordsOfTheSelection() {
    requireListing();
    Duration lease = timing().lease();
    RecordId withPoint = id("abandoned-with-point");
    RecordId withoutPoint = id("abandoned-without-point");
    RecordId live = id("live");
    RecordId done = id("done");
    RecordId released = id("released");
    Timeline tl = timeline();
    ClaimOutcome.Claimed cp = claimNew(withPoint, FP_A, lease);
    verify()
        .succeeds(
            Rule.R4_6,
            "a checkpoint",
            () -> store().checkpoint(withPoint, cp.fence(), Samples.point("p"), tl.start(), lease));
    claimNew(withoutPoint, FP_B, lease);
    complete(done, claimNew(done).fence(), Samples.response("done"), Rule.R11_1);
    ClaimOutcome.Claimed cr = claimNew(released);
    verify()
        .succeeds(
            Rule.R5_3, "the owner's release", () -> store().release(released, cr.fence(), now()));
    tl.justBefore(lease);
    List<RecordSnapshot> none = listAll(RecordQuery.of(RecordSelection.ABANDONED, now(), 100));
    verify()
        .check(
            none.isEmpty(),
            Rule.R11_1,
            () -> "before any lease expired, ABANDONED listed " + Describe.snapshots(none));
    tl.at(lease);
    // claimed once the others' leases expired: its stable lease outlasts the rest of the test
    claimNew(live);
    List<RecordId> all = List.of(withPoint, withoutPoint, live, done, released);
    Map<RecordId, Optional<RecordSnapshot>> before = new LinkedHashMap<>();
    all.forEach(id -> before.put(id, lookup(id)));
    Map<RecordSelection, List<RecordId>> expected = new LinkedHashMap<>();
    expected.put(RecordSelection.ABANDONED, List.of(withPoint, withoutPoint));
    expected.put(RecordSelection.ABANDONED_WITH_RECOVERY_POINT, List.of(withPoint));
    expected.put(RecordSelection.ABANDONED_WITHOUT_RECOVERY_POINT, List.of(withoutPoint));
    expected.put(RecordSelection.LIVE, List.of(live));
    expected.put(RecordSelection.COMPLETE, List.of(done));
    for (Map.Entry<RecordSelection, List<RecordId>> e : expected.entrySet()) {
      List<RecordSnapshot> listed = listAll(RecordQuery.of(e.getKey(), now(), 100));
      verify()
          .fact(
              Rule.R11_1,
              "the records "
                  + e.getKey()
                  + " listed"
                  + (timing().isRealTime() ? "" : " (the abandoned leases expired exactly now)")
                  + ", "
                  + Describe.snapshots(listed),
              () -> assertThat(idsOf(listed)).containsExactlyInAnyOrderElementsOf(e.getValue()));
      for (RecordSnapshot s : listed) {
        verify()
            .fact(
                Rule.R11_1,
                "the listed snapshot of " + s.id() + " against lookup's",
                () -> assertThat(Optional.of(s)).isEqualTo(before.get(s.id())));
      }
    }
    before.forEach((id, was) -> unchanged(id, was, Rule.R11_1, "listing the records"));
  }

  @Test
  @DisplayName(
      "Rule 11.2: pages hold at most limit records, and following the cursor lists each record"
          + " once")
  default void optional_11_2_pagesNeitherRepeatNorSkipRecords() {
    requireListing();
    // completed records interleaved in key order with live ones, which the selection leaves out:
    // a store that cuts the page before filtering, or pages on the wrong position, shows here
    List<RecordId> completed = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      RecordId id = id(String.format("k%02d", i));
      ClaimOutcome.Claimed c = claimNew(id);
      if (i % 3 != 1) {
        complete(id, c.fence(), Samples.response("r" + i), Rule.R11_2);
        completed.add(id);
      }
    }
    for (int limit : new int[] {1, 3, 8}) {
      List<RecordSnapshot> listed = listAll(RecordQuery.of(RecordSelection.COMPLETE, now(), limit));
      List<RecordId> ids = idsOf(listed);
      Set<RecordId> distinct = new HashSet<>(ids);
      verify()
          .check(
              distinct.size() == ids.size(),
              Rule.R11_2,
              () -> "with limit " + limit + " the pages repeated records: " + ids);
      verify()
          .fact(
              Rule.R11_2,
              "with limit " + limit + ", the records of every page together",
              () -> assertThat(ids).containsExactlyInAnyOrderElementsOf(completed));
    }
  }

  @Test
  @DisplayName("Rule 11.3: a query with a scope lists that scope's records only")
  default void optional_11_3_aScopeListsOnlyItsOwnRecords() {
    requireListing();
    RecordId mine = Samples.id("tenant-1", "k1");
    RecordId longer = Samples.id("tenant-10", "k1");
    RecordId other = Samples.id("tenant-2", "k1");
    RecordId other2 = Samples.id("tenant-2", "k2");
    for (RecordId id : List.of(mine, longer, other, other2)) {
      complete(id, claimNew(id).fence(), Samples.response(id.toString()), Rule.R11_3);
    }
    RecordQuery all = RecordQuery.of(RecordSelection.COMPLETE, now(), 2);
    Map<String, List<RecordId>> expected = new LinkedHashMap<>();
    expected.put("tenant-1", List.of(mine));
    expected.put("tenant-10", List.of(longer));
    expected.put("tenant-2", List.of(other, other2));
    for (Map.Entry<String, List<RecordId>> e : expected.entrySet()) {
      List<RecordSnapshot> listed = listAll(all.inScope(Scope.of(e.getKey())));
      verify()
          .fact(
              Rule.R11_3,
              "the records listed in scope " + e.getKey() + ", " + Describe.snapshots(listed),
              () -> assertThat(idsOf(listed)).containsExactlyInAnyOrderElementsOf(e.getValue()));
    }
    List<RecordSnapshot> everywhere = listAll(all);
    verify()
        .fact(
            Rule.R11_3,
            "the records listed without a scope, " + Describe.snapshots(everywhere),
            () ->
                assertThat(idsOf(everywhere))
                    .containsExactlyInAnyOrder(mine, longer, other, other2));
  }
}
