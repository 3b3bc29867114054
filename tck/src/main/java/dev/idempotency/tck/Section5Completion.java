package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "5. Completion and release": what completion stores, and release (rules 5.1 to
 * 5.4).
 *
 * <p>{@code KeyStoreContract.CompletionRules} runs these tests against the store under test.
 */
interface Section5Completion extends ContractFixture {
  /** The largest declared limit rule 5.5 checks: a response that size is built in memory. */
  long MAX_CHECKED_LIMIT = 64L << 20;

  @Test
  @DisplayName("Rule 5.1: a completed response is replayed byte for byte")
  default void required_5_1_replayIsByteForByte() throws Exception {
    List<StoredResponse> responses = new ArrayList<>();
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("X-Zeta", List.of("last-letter-first"));
    headers.put("Content-Type", List.of("application/json; charset=utf-8"));
    headers.put("x-MiXeD-case", List.of("second", "first", "second"));
    headers.put("Location", List.of("/orders/42?x=a%20b&y=\"q\""));
    headers.put("X-Empty", List.of(""));
    headers.put("X-Unicode", List.of("caf\u00e9 \u2713 \u6771\u4eac"));
    headers.put("X-None", List.of());
    responses.add(
        StoredResponse.of(
            201, headers, "{\"id\":42,\"note\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8)));
    responses.add(StoredResponse.of(500, Map.of(), new byte[0]));
    byte[] binary = new byte[256 + 4];
    for (int i = 0; i < 256; i++) {
      binary[i] = (byte) i;
    }
    binary[256] = (byte) 0xC3;
    binary[257] = (byte) 0x28;
    binary[258] = (byte) 0xFF;
    binary[259] = 0;
    responses.add(
        StoredResponse.of(
            422, Map.of("Content-Type", List.of("application/octet-stream")), binary));
    byte[] large = new byte[64 * 1024];
    new SplittableRandom(context().seed()).nextBytes(large);
    responses.add(StoredResponse.of(299, Map.of(), large));
    responses.add(
        StoredResponse.of(
            999, Map.of("Retry-After", List.of("0")), "\r\n\t ".getBytes(StandardCharsets.UTF_8)));
    List<KeyStore> all = instances();
    for (int i = 0; i < responses.size(); i++) {
      RecordId id = id("response-" + i);
      StoredResponse response = responses.get(i);
      ClaimOutcome.Claimed c = claimNew(id);
      complete(id, c.fence(), response, Rule.R5_1);
      for (int j = 0; j < all.size(); j++) {
        replays(
            claim(all.get(j), id, FP_A, timing().stableLease(), timing().stableWindow()),
            response,
            Rule.R5_1,
            "the replay of response #" + i + " through instance " + j);
      }
      RecordSnapshot s = present(id, Rule.R5_1, "after completion");
      verify()
          .record(s, Rule.R5_1, "lookup after the completion of response #" + i)
          .response(response);
    }
    verify()
        .check(
            Arrays.equals(responses.get(2).body(), binary),
            Rule.R5_1,
            () -> "the TCK's own copy changed");
  }

  @Test
  @DisplayName("Rule 5.2: completion is final: later writes with the fence are refused")
  default void required_5_2_completionIsFinal() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    StoredResponse first = Samples.response("first");
    complete(id, c.fence(), first, Rule.R5_2);
    Optional<RecordSnapshot> before = lookup(id);
    verify()
        .leaseLost(
            Rule.R5_2,
            "a second complete with the same fence",
            () -> store().complete(id, c.fence(), Samples.response("second"), now()));
    verify()
        .leaseLost(
            Rule.R5_2,
            "a heartbeat after completion",
            () -> store().heartbeat(id, c.fence(), now(), timing().stableLease()));
    verify()
        .leaseLost(
            Rule.R5_2,
            "a checkpoint after completion",
            () ->
                store()
                    .checkpoint(
                        id, c.fence(), Samples.point("late"), now(), timing().stableLease()));
    verify()
        .leaseLost(
            Rule.R5_2, "a release after completion", () -> store().release(id, c.fence(), now()));
    unchanged(id, before, Rule.R5_2, "the refused writes after completion");
    replays(claim(id, FP_A), first, Rule.R5_2, "a retry after the refused writes");
  }

  @Test
  @DisplayName(
      "Rule 5.3: release makes the record absent; the next claim, with any fingerprint, starts anew")
  default void required_5_3_releaseMakesTheRecordAbsent() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    verify()
        .succeeds(
            Rule.R4_6,
            "the owner's checkpoint",
            () ->
                store()
                    .checkpoint(id, c.fence(), Samples.point("p1"), now(), timing().stableLease()));
    verify()
        .succeeds(Rule.R5_3, "the owner's release", () -> store().release(id, c.fence(), now()));
    absent(id, Rule.R5_3, "after release");
    ClaimOutcome next = claim(id, FP_B);
    fresh(next, c.fence(), Rule.R5_3, "a claim with another fingerprint after release");
    RecordSnapshot s = present(id, Rule.R5_3, "after the new claim");
    verify()
        .record(s, Rule.R5_3, "after a release and a new claim")
        .fingerprint(FP_B)
        .noRecoveryPoint();
    FenceToken second = ((ClaimOutcome.Claimed) next).fence();
    verify()
        .succeeds(Rule.R5_3, "the new owner's release", () -> store().release(id, second, now()));
    fresh(claim(id, FP_A), second, Rule.R5_3, "the first request again after the second release");
  }

  @Test
  @DisplayName("Rule 5.4: replays and mismatches do not extend the replay window")
  default void required_5_4_replaysAndMismatchesChangeNothing() {
    RecordId id = id("k1");
    Duration window = timing().window();
    ClaimOutcome.Claimed c = claimNew(id);
    StoredResponse response = Samples.response("first");
    Timeline tl = timeline();
    complete(id, c.fence(), response, Rule.R5_4);
    tl.started();
    Optional<RecordSnapshot> before = lookup(id);
    tl.justBefore(window);
    for (int i = 0; i < 3; i++) {
      replays(
          claim(store(), id, FP_A, timing().stableLease(), window),
          response,
          Rule.R5_4,
          "a replay");
      verify()
          .mismatch(
              claim(store(), id, FP_B, timing().stableLease(), window),
              Rule.R5_4,
              "another request");
    }
    unchanged(id, before, Rule.R5_4, "replays and mismatches");
    tl.at(window);
    fresh(
        claim(store(), id, FP_A, timing().stableLease(), window),
        c.fence(),
        Rule.R5_4,
        "a claim once the window of the completion passed (replays do not extend it)");
  }

  @Test
  @DisplayName(
      "Rule 5.5: a response as large as the store's declared limit is kept; a larger one is refused"
          + " with KeyStoreException and changes nothing")
  default void required_5_5_aResponseOverTheDeclaredLimitIsRefusedAndChangesNothing() {
    long limit = store().maxResponseBytes();
    Assumptions.assumeTrue(
        limit <= MAX_CHECKED_LIMIT,
        "the store declares no limit of 64 MiB or less (maxResponseBytes() = "
            + limit
            + "): nothing to check");
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    Optional<RecordSnapshot> before = lookup(id);
    StoredResponse over = Samples.responseOfSize(limit + 1);
    verify()
        .throwsA(
            KeyStoreException.class,
            Rule.R5_5,
            "complete with a response of " + over.size() + " bytes, over the declared " + limit,
            () -> store().complete(id, c.fence(), over, now()));
    verify()
        .throwsA(
            KeyStoreException.class,
            Rule.R5_5,
            "the same complete (not an outage: neither StoreUnavailable nor LeaseLost)",
            () -> {
              try {
                store().complete(id, c.fence(), over, now());
              } catch (StoreUnavailableException | LeaseLostException e) {
                throw new IllegalStateException("threw " + e, e);
              }
            });
    unchanged(id, before, Rule.R5_5, "a refused complete over the limit");
    StoredResponse atLimit = Samples.responseOfSize(limit);
    complete(id, c.fence(), atLimit, Rule.R5_5);
    replays(claim(id, FP_A), atLimit, Rule.R5_5, "a claim after completing at the limit");
  }
}
