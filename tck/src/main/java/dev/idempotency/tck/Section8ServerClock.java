package dev.idempotency.tck;

import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "8. The server clock": which clock the store judges time by (rules 8.1 and 8.2).
 *
 * <p>{@code KeyStoreContract.ServerClockRules} runs these tests against the store under test.
 */
interface Section8ServerClock extends ContractFixture {
  @Test
  @DisplayName("Rule 8.1: a SERVER_CLOCK store ignores the now it is given")
  default void optional_8_1_serverClockIgnoresTheGivenNow() {
    Assumptions.assumeTrue(
        has(StoreCapability.SERVER_CLOCK),
        "the store does not declare SERVER_CLOCK, so it"
            + " judges time by the now it is given (rule 8.2 applies instead)");
    RecordId open = id("open");
    RecordId done = id("done");
    claimNew(open);
    ClaimOutcome.Claimed cd = claimNew(done);
    StoredResponse response = Samples.response("done");
    complete(done, cd.fence(), response, Rule.R8_1);
    Instant future = now().plus(Duration.ofDays(400));
    verify()
        .inFlight(
            store()
                .claim(
                    new ClaimRequest(
                        open, FP_A, future, timing().stableLease(), timing().stableWindow())),
            Rule.R8_1,
            "a claim whose now is 400 days ahead of the server's clock, while the"
                + " lease is live by it");
    replays(
        store()
            .claim(
                new ClaimRequest(
                    done, FP_A, future, timing().stableLease(), timing().stableWindow())),
        response,
        Rule.R8_1,
        "a retry whose now is 400 days ahead, within the window by the server's clock");
    List<RecordSnapshot> found = store().findAbandoned(future, 10);
    verify()
        .check(
            found.isEmpty(),
            Rule.R8_1,
            () -> "findAbandoned with a now 400 days ahead returned " + Describe.snapshots(found));
    int n = store().deleteExpired(future, timing().stableRetention(), 10);
    verify()
        .check(n == 0, Rule.R8_1, () -> "deleteExpired with a now 400 days ahead returned " + n);
    present(open, Rule.R8_1, "after deleteExpired with a future now");
    present(done, Rule.R8_1, "after deleteExpired with a future now");
    RecordId past = id("past");
    Instant longAgo = Instant.parse("1999-12-31T23:59:59Z");
    verify()
        .claimed(
            store()
                .claim(
                    new ClaimRequest(
                        past, FP_A, longAgo, timing().stableLease(), timing().stableWindow())),
            Rule.R1_1,
            "a claim whose now is in 1999");
    RecordSnapshot s = present(past, Rule.R8_1, "a claim with a now in 1999");
    verify()
        .check(
            s.leaseExpiresAt().orElseThrow().isAfter(longAgo.plus(Duration.ofDays(365))),
            Rule.R8_1,
            () ->
                "a claim with a now in 1999 holds a lease until "
                    + s.leaseExpiresAt().orElseThrow()
                    + ", which is not by the server's clock");
    verify()
        .inFlight(
            claim(past, FP_A),
            Rule.R8_1,
            "a retry with the real time as now, after a claim whose now was"
                + " in 1999 (by the server's clock its lease is live)");
  }

  @Test
  @DisplayName("Rule 8.2: a store without SERVER_CLOCK judges time by the now it is given alone")
  default void required_8_2_withoutServerClockTimeIsJudgedByNowAlone() {
    Assumptions.assumeFalse(
        has(StoreCapability.SERVER_CLOCK),
        "the store declares SERVER_CLOCK (rule 8.1" + " applies instead)");
    Duration lease = timing().lease();
    int round = 0;
    for (Instant start :
        List.of(Instant.parse("1999-12-31T23:59:59.500Z"), Instant.parse("2095-06-01T12:00:00Z"))) {
      RecordId id = id("k" + ++round);
      clock().set(start);
      claimNew(id, FP_A, lease);
      clock().set(start.plus(lease).minusMillis(1));
      verify()
          .inFlight(
              claim(store(), id, FP_A, lease, timing().window()),
              Rule.R8_2,
              "a claim 1 ms before the lease"
                  + " ends by now="
                  + now()
                  + " (the lease started at now="
                  + start
                  + ")");
      clock().set(start.plus(lease));
      ClaimOutcome.Claimed t =
          verify()
              .claimed(
                  claim(store(), id, FP_A, lease, timing().window()),
                  Rule.R8_2,
                  "a claim when the lease ends by now="
                      + now()
                      + " (the lease started at now="
                      + start
                      + ")");
      StoredResponse response = Samples.response("at " + start);
      Instant completedAt = now();
      complete(id, t.fence(), response, Rule.R8_2);
      clock().set(completedAt.plus(timing().window()).minusMillis(1));
      replays(
          claim(store(), id, FP_A, lease, timing().window()),
          response,
          Rule.R8_2,
          "a retry 1 ms before the" + " window ends by now=" + now());
      clock().set(completedAt.plus(timing().window()));
      fresh(
          claim(store(), id, FP_A, lease, timing().window()),
          t.fence(),
          Rule.R8_2,
          "a claim when the window ends"
              + " by now="
              + now()
              + " (completed at now="
              + completedAt
              + ")");
    }
  }
}
