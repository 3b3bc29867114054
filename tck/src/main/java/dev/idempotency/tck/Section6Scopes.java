package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "6. Scopes and record identity": what names a record (rules 6.1 and 6.2).
 *
 * <p>{@code KeyStoreContract.ScopeRules} runs these tests against the store under test.
 */
interface Section6Scopes extends ContractFixture {
  @Test
  @DisplayName("Rule 6.1: the same key under two scopes names two independent records")
  default void required_6_1_sameKeyInTwoScopesNamesTwoRecords() {
    RecordId a = Samples.id("tenant-a", "order-1");
    RecordId b = Samples.id("tenant-b", "order-1");
    ClaimOutcome.Claimed ca = claimNew(a, FP_A, timing().stableLease());
    ClaimOutcome.Claimed cb =
        verify()
            .claimed(
                claim(b, FP_B),
                Rule.R6_1,
                "the first claim of " + b + " while " + a + " is in flight");
    StoredResponse ra = Samples.response("tenant-a");
    complete(a, ca.fence(), ra, Rule.R6_1);
    verify().inFlight(claim(b, FP_B), Rule.R6_1, "a claim of " + b + " after " + a + " completed");
    replays(claim(a, FP_A), ra, Rule.R6_1, "a claim of " + a);
    verify().succeeds(Rule.R6_1, "release of " + b, () -> store().release(b, cb.fence(), now()));
    RecordSnapshot sa = present(a, Rule.R6_1, "after " + b + " was released");
    verify()
        .check(
            sa.state() == KeyState.COMPLETE,
            Rule.R6_1,
            () -> "releasing " + b + " changed " + a + ": " + Describe.snapshot(sa));
    fresh(claim(b, FP_A), cb.fence(), Rule.R6_1, "a claim of the released " + b);
  }

  @Test
  @DisplayName("Rule 6.2: record identity is exact: case, length, separators, non-ASCII")
  default void required_6_2_recordIdentityIsExact() {
    String long255 = "k".repeat(254);
    List<RecordId> ids =
        List.of(
            Samples.id("scope", "Key"),
            Samples.id("scope", "key"),
            Samples.id("Scope", "key"),
            Samples.id("a/b", "c"),
            Samples.id("a", "b/c"),
            Samples.id("a:b", "c"),
            Samples.id("a", "b:c"),
            Samples.id("a", "bc"),
            Samples.id("ab", "c"),
            Samples.id("a|b", "c"),
            Samples.id("a", "b|c"),
            Samples.id("scope", "a_c"),
            Samples.id("scope", "abc"),
            Samples.id("scope", "a%"),
            Samples.id("scope", "a'\"\\*?"),
            Samples.id("scope", long255 + "x"),
            Samples.id("scope", long255 + "y"),
            Samples.id("scope", long255),
            Samples.id("z\u00fcrich \u6771\u4eac \u2713", "k"),
            Samples.id("zurich", "k"),
            Samples.id("s".repeat(255), "k"),
            Samples.id("s".repeat(254), "k"),
            Samples.id("scope ", "k"),
            Samples.id("scope", "k"),
            Samples.id("scope", "K"));
    List<FenceToken> fences = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      RecordId id = ids.get(i);
      ClaimOutcome outcome = claim(id, Samples.fingerprint("request " + i));
      String situation =
          "the first claim of "
              + quote(id)
              + " (a claim that is not a fresh win collides with one"
              + " of "
              + ids.subList(0, i).stream().map(Section6Scopes::quote).toList()
              + ")";
      ClaimOutcome.Claimed c = verify().claimed(outcome, Rule.R6_2, situation);
      verify().won(c, Rule.R6_2, situation).notTakeover();
      fences.add(c.fence());
    }
    for (int i = 0; i < ids.size(); i++) {
      complete(
          ids.get(i),
          fences.get(i),
          Samples.response(ids.get(i).scope().value() + "|" + ids.get(i).key()),
          Rule.R6_2);
    }
    for (int i = 0; i < ids.size(); i++) {
      RecordId id = ids.get(i);
      StoredResponse own = Samples.response(id.scope().value() + "|" + id.key());
      replays(
          claim(id, Samples.fingerprint("request " + i)),
          own,
          Rule.R6_2,
          "the replay of " + quote(id));
      RecordSnapshot s = present(id, Rule.R6_2, "record " + quote(id));
      verify()
          .check(
              s.id().equals(id),
              Rule.R6_2,
              () -> "lookup(" + quote(id) + ") returned the record of " + quote(s.id()));
    }
  }

  /** A record id as a pair of quoted strings, so that a trailing space or a separator shows. */
  private static String quote(RecordId id) {
    return "(\"" + id.scope().value() + "\", \"" + id.key().value() + "\")";
  }
}
