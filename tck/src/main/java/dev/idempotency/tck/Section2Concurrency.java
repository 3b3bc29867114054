package dev.idempotency.tck;

import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.ConcurrencyGate;
import dev.idempotency.tck.internal.Knobs;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SPEC.md, section "2. Atomicity and concurrency": peers, and the concurrency gate (rules 2.2 to
 * 2.5); the generated histories of rules 2.1 and 2.6 are in {@link Section2Histories}.
 *
 * <p>{@code KeyStoreContract.ConcurrencyRules} runs these tests against the store under test.
 */
interface Section2Concurrency extends ContractFixture {
  @Test
  @DisplayName("Rule 2.2: instances over the same records see each other's writes at once")
  default void required_2_2_peersSeeEachOthersWrites() throws Exception {
    List<KeyStore> all = instances();
    RecordId a = id("a");
    ClaimOutcome.Claimed c =
        verify()
            .claimed(
                claim(all.get(0), a, FP_A, timing().stableLease(), timing().stableWindow()),
                Rule.R1_1,
                "the first claim of " + a);
    for (int i = 1; i < all.size(); i++) {
      verify()
          .inFlight(
              claim(all.get(i), a, FP_A, timing().stableLease(), timing().stableWindow()),
              Rule.R2_2,
              "a claim through instance " + i + " right after instance 0 won " + a);
    }
    RecordSnapshot seen =
        all.get(all.size() - 1)
            .lookup(a)
            .orElseThrow(
                () ->
                    verify()
                        .violation(
                            Rule.R2_2,
                            "lookup through the last instance does not see the record instance 0 claimed"));
    verify()
        .check(
            seen.fence().equals(c.fence()),
            Rule.R2_2,
            () ->
                "lookup through another instance shows "
                    + seen.fence()
                    + ", expected "
                    + c.fence());
    StoredResponse response = Samples.response("peer completion");
    verify()
        .succeeds(
            Rule.R2_2,
            "complete through instance 1 with the owner's fence",
            () -> all.get(1).complete(a, c.fence(), response, now()));
    for (int i = 0; i < all.size(); i++) {
      replays(
          claim(all.get(i), a, FP_A, timing().stableLease(), timing().stableWindow()),
          response,
          Rule.R2_2,
          "a claim through instance " + i + " after instance 1 completed " + a);
    }
    RecordId b = id("b");
    ClaimOutcome.Claimed cb =
        verify()
            .claimed(
                claim(all.get(2), b, FP_A, timing().stableLease(), timing().stableWindow()),
                Rule.R1_1,
                "the first claim of " + b);
    verify()
        .succeeds(
            Rule.R2_2,
            "release through instance 0",
            () -> all.get(0).release(b, cb.fence(), now()));
    fresh(
        claim(all.get(1), b, FP_B, timing().stableLease(), timing().stableWindow()),
        cb.fence(),
        Rule.R2_2,
        "a claim through instance 1 after instance 0 released " + b);
  }

  @Test
  @DisplayName("Rule 2.3: of N concurrent claims of one record (N = 2..64), exactly one wins")
  default void required_2_3_concurrentClaimsYieldExactlyOneWinner() throws Exception {
    try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock(), timing(), verify(), 64)) {
      gate.claimRaces(ConcurrencyGate.threadCounts(), Knobs.rounds(), true);
    }
  }

  @Test
  @DisplayName(
      "Rule 2.4: losers see InFlight or the winner's byte-identical response, and then the replay")
  default void required_2_4_losersSeeInFlightOrTheWinnersResponse() throws Exception {
    try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock(), timing(), verify(), 64)) {
      gate.claimRaces(new int[] {4, 16, 64}, Math.max(1, Knobs.rounds() / 2), false);
    }
  }

  @Test
  @DisplayName("Rule 2.5: of concurrent takeovers of one expired lease, exactly one wins")
  default void required_2_5_concurrentTakeoversYieldExactlyOneWinner() throws Exception {
    try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock(), timing(), verify(), 32)) {
      // with real leases each round waits one lease out: one round per thread count, so N = 8 and
      // 32 race too
      gate.takeoverRaces(
          new int[] {2, 8, 32}, timing().isRealTime() ? 3 : Math.max(3, Knobs.rounds() / 2));
    }
  }

  @Test
  @Tag("slow")
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  @DisplayName("Rule 2.3 (long run): the concurrency gate with ten times the rounds")
  default void required_2_3_concurrencyGateLongRun() throws Exception {
    try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock(), timing(), verify(), 64)) {
      gate.claimRaces(ConcurrencyGate.threadCounts(), Knobs.rounds() * 10, true);
    }
  }
}
