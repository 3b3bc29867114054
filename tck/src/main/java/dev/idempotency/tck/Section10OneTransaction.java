package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "10. Transactional stores", rules 10.9 to 10.13: {@code claimAndComplete}, the
 * claim, the work and the completion in one transaction. Every test is skipped, with the reason,
 * for a store that does not declare {@link StoreCapability#ONE_TRANSACTION}.
 *
 * <p>{@code TransactionalKeyStoreContract.OneTransactionRules} runs these tests against the store
 * under test.
 *
 * <p>The words these rules are written in (work that counts its runs, the outcomes required, the
 * racing calls of rule 10.13) are {@link OneTransactionFixture}'s.
 *
 * @param <T> the store's transaction handle
 */
interface Section10OneTransaction<T> extends OneTransactionFixture<T> {
  @Test
  @DisplayName(
      "Rule 10.9: claimAndComplete commits the claim, the work and the completion together, and"
          + " nothing of them before")
  default void optional_10_9_claimWorkAndCompletionCommitTogether() throws Exception {
    requireCapability();
    RecordId id = id("k1");
    StoredResponse response = Samples.response("one transaction");
    AtomicReference<Optional<RecordSnapshot>> seenMeanwhile = new AtomicReference<>();
    AtomicReference<List<String>> committedMeanwhile = new AtomicReference<>();
    AtomicReference<ClaimOutcome.Claimed> heldByWork = new AtomicReference<>();
    AtomicInteger runs = new AtomicInteger();
    OneTransactionOutcome outcome =
        commits(
            Rule.R10_9,
            "claimAndComplete of " + id,
            () ->
                store()
                    .claimAndComplete(
                        request(id, timing().stableLease()),
                        (tx, claim) -> {
                          runs.incrementAndGet();
                          heldByWork.set(claim);
                          write(tx, "k1 created");
                          // what another instance sees while the transaction is open
                          seenMeanwhile.set(store().lookup(id));
                          committedMeanwhile.set(markers());
                          return response;
                        }));
    ranTimes(runs, 1, Rule.R10_9, "claimAndComplete of an absent record");
    Optional<RecordSnapshot> seen =
        Objects.requireNonNullElse(seenMeanwhile.get(), Optional.empty());
    List<String> committedWhileOpen =
        Objects.requireNonNullElse(committedMeanwhile.get(), List.of());
    verify()
        .check(
            seen.isEmpty(),
            Rule.R10_9,
            () ->
                "while the work ran, lookup found "
                    + Describe.snapshot(seen)
                    + ", expected nothing: the claim must not commit before the completion");
    verify()
        .check(
            committedWhileOpen.isEmpty(),
            Rule.R10_9,
            () ->
                "while the work ran, the committed business writes were "
                    + committedWhileOpen
                    + ", expected none");
    OneTransactionOutcome.Committed c = committed(outcome, Rule.R10_9, "claimAndComplete of " + id);
    verify()
        .won(c.claim(), Rule.R10_9, "the claim claimAndComplete returned")
        .fresh()
        .noResumeFrom();
    verify()
        .check(
            c.claim().equals(heldByWork.get()),
            Rule.R10_9,
            () ->
                "the claim returned, "
                    + c.claim()
                    + ", is not the one the work was given, "
                    + heldByWork.get());
    verify()
        .identical(c.response(), response, Rule.R10_9, "the response claimAndComplete returned");
    requireMarkers(Rule.R10_9, "after claimAndComplete returned", "k1 created");
    verify()
        .record(
            present(id, Rule.R10_9, "after claimAndComplete returned"),
            Rule.R10_9,
            "after claimAndComplete returned")
        .state(KeyState.COMPLETE)
        .fence(c.claim().fence())
        .response(response);
    ClaimOutcome replay = store().claim(request(id, timing().stableLease()));
    ClaimOutcome.Completed done =
        verify().completed(replay, Rule.R10_9, "a retry after claimAndComplete");
    verify().identical(done.response(), response, Rule.R10_9, "the response a retry replayed");
    AtomicInteger retryRuns = new AtomicInteger();
    ClaimOutcome again =
        notRun(
            store()
                .claimAndComplete(
                    request(id, timing().stableLease()),
                    writing(retryRuns, "k1 created again", response)),
            Rule.R10_9,
            "a retry through claimAndComplete");
    verify().completed(again, Rule.R10_9, "a retry through claimAndComplete");
    ranTimes(retryRuns, 0, Rule.R10_9, "a retry through claimAndComplete");
  }

  @Test
  @DisplayName(
      "Rule 10.10: work that throws rolls the claim back with it, and the retry runs as a first"
          + " attempt")
  default void optional_10_10_workThatThrowsRollsTheClaimBack() throws Exception {
    requireCapability();
    RecordId id = id("k1");
    IllegalStateException declined = new IllegalStateException("card declined");
    AtomicReference<ClaimOutcome.Claimed> first = new AtomicReference<>();
    Exception thrown =
        thrownBy(
            () ->
                store()
                    .claimAndComplete(
                        request(id, timing().stableLease()),
                        (tx, claim) -> {
                          first.set(claim);
                          write(tx, "k1 charged");
                          throw declined;
                        }));
    verify()
        .check(
            thrown == declined,
            Rule.R10_10,
            () ->
                "claimAndComplete whose work threw "
                    + declined
                    + " threw "
                    + describe(thrown)
                    + ", expected the work's exception itself");
    requireMarkers(Rule.R10_10, "after a claimAndComplete whose work threw");
    unchanged(id, Optional.empty(), Rule.R10_10, "a claimAndComplete whose work threw");
    ClaimOutcome.Claimed firstClaim = first.get();
    if (firstClaim == null) {
      throw verify()
          .violation(Rule.R10_10, "the work never ran; claimAndComplete threw " + describe(thrown));
    }
    AtomicInteger runs = new AtomicInteger();
    StoredResponse response = Samples.response("second attempt");
    OneTransactionOutcome.Committed retry =
        committed(
            commits(
                Rule.R10_10,
                "the retry after the rollback",
                () ->
                    store()
                        .claimAndComplete(
                            request(id, timing().stableLease()),
                            writing(runs, "k1 charged at last", response))),
            Rule.R10_10,
            "the retry after the rollback");
    verify()
        .won(retry.claim(), Rule.R10_10, "the retry's claim")
        .fresh()
        .noResumeFrom()
        .fenceAbove(firstClaim.fence());
    requireMarkers(Rule.R10_10, "after the retry", "k1 charged at last");
    if (!underTest().hooks().canAbortRetryably()) {
      return; // the re-run after a retryable abort needs the subclass's abortRetryably
    }
    RecordId other = id("k2");
    AtomicInteger aborted = new AtomicInteger();
    OneTransactionOutcome.Committed rerun =
        committed(
            commits(
                Rule.R10_10,
                "claimAndComplete whose first run was aborted",
                () ->
                    store()
                        .claimAndComplete(
                            request(other, timing().stableLease()),
                            (tx, claim) -> {
                              int run = aborted.incrementAndGet();
                              write(tx, "k2 run " + run);
                              if (run == 1) {
                                underTest().hooks().abortRetryably(tx);
                              }
                              return Samples.response("run " + run);
                            })),
            Rule.R10_10,
            "claimAndComplete whose first run was aborted");
    int ran = aborted.get();
    verify()
        .fact(
            Rule.R10_10,
            "the runs of a claimAndComplete whose first run was aborted",
            () -> assertThat(ran).isGreaterThanOrEqualTo(2));
    requireMarkers(
        Rule.R10_10,
        "after a claimAndComplete whose first run was aborted",
        "k1 charged at last",
        "k2 run " + ran);
    verify()
        .identical(
            rerun.response(),
            Samples.response("run " + ran),
            Rule.R10_10,
            "the response of a claimAndComplete whose first run was aborted (the last run's)");
  }

  @Test
  @DisplayName(
      "Rule 10.11: a record that does not count as absent is answered as a claim would, and the"
          + " work does not run")
  default void optional_10_11_recordThatIsNotAbsentIsAnsweredWithoutRunningTheWork()
      throws Exception {
    requireCapability();
    RecordId done = id("done");
    StoredResponse stored = Samples.response("two commits");
    var owner = owner(done, timing().stableLease());
    store().complete(done, owner.fence(), stored, owner.now());
    RecordId live = id("live");
    owner(live, timing().stableLease());
    AtomicInteger runs = new AtomicInteger();
    for (RecordId id : List.of(done, live)) {
      Optional<RecordSnapshot> before = store().lookup(id);
      ClaimOutcome sameRequest =
          notRun(
              store()
                  .claimAndComplete(
                      request(id, timing().stableLease()),
                      writing(runs, id.key().value() + " again", stored)),
              Rule.R10_11,
              "claimAndComplete of the same request on " + id);
      if (id.equals(done)) {
        ClaimOutcome.Completed replay =
            verify().completed(sameRequest, Rule.R10_11, "the same request on a completed record");
        verify().identical(replay.response(), stored, Rule.R10_11, "the response replayed");
      } else {
        verify().inFlight(sameRequest, Rule.R10_11, "the same request on a live in-flight record");
      }
      ClaimRequest otherRequest =
          new ClaimRequest(
              id,
              Samples.fingerprint("POST /orders {\"item\":8}"),
              clock().instant(),
              timing().stableLease(),
              timing().stableWindow());
      ClaimOutcome reused =
          notRun(
              store().claimAndComplete(otherRequest, writing(runs, id + " reused", stored)),
              Rule.R10_11,
              "claimAndComplete of another request on " + id);
      verify().mismatch(reused, Rule.R10_11, "another request under the key of " + id);
      unchanged(id, before, Rule.R10_11, "claimAndComplete on " + id);
    }
    ranTimes(runs, 0, Rule.R10_11, "claimAndComplete on records that are not absent");
    requireMarkers(Rule.R10_11, "after claimAndComplete on records that are not absent");
  }

  @Test
  @DisplayName(
      "Rule 10.12: an expired in-flight record is taken over in one transaction without a recovery"
          + " point, and refused with one")
  default void optional_10_12_expiredTwoCommitRecordIsTakenOverOrRefused() throws Exception {
    requireCapability();
    Duration lease = timing().lease();
    RecordId plain = id("plain");
    RecordId phased = id("phased");
    RecoveryPoint charged = Samples.point("charged");
    Timeline tl = Timeline.start(clock(), timing());
    var plainOwner = owner(plain, lease);
    var phasedOwner = owner(phased, lease);
    store().checkpoint(phased, phasedOwner.fence(), charged, phasedOwner.now(), lease);
    tl.at(lease);
    Optional<RecordSnapshot> phasedBefore = store().lookup(phased);
    AtomicInteger runs = new AtomicInteger();
    StoredResponse response = Samples.response("taken over");
    OneTransactionOutcome.Committed takeover =
        committed(
            commits(
                Rule.R10_12,
                "claimAndComplete of an expired in-flight record without a recovery point",
                () ->
                    store()
                        .claimAndComplete(
                            request(plain, timing().stableLease()),
                            writing(runs, "plain shipped", response))),
            Rule.R10_12,
            "claimAndComplete of an expired in-flight record without a recovery point");
    verify()
        .won(takeover.claim(), Rule.R10_12, "the one-transaction takeover")
        .takeover()
        .noResumeFrom()
        .fenceAbove(plainOwner.fence());
    verify()
        .record(
            present(plain, Rule.R10_12, "after the one-transaction takeover"),
            Rule.R10_12,
            "after the one-transaction takeover")
        .state(KeyState.COMPLETE)
        .fence(takeover.claim().fence())
        .response(response);
    verify()
        .leaseLost(
            Rule.R10_12,
            "the old owner's completion after the one-transaction takeover",
            () -> store().complete(plain, plainOwner.fence(), response, clock().instant()));
    OneTransactionOutcome refused =
        store()
            .claimAndComplete(
                request(phased, timing().stableLease()), writing(runs, "phased shipped", response));
    verify()
        .check(
            refused instanceof OneTransactionOutcome.NeedsResumption r
                && r.lastPoint().equals(charged),
            Rule.R10_12,
            () ->
                "claimAndComplete of an expired in-flight record with the recovery point "
                    + charged.name()
                    + " returned "
                    + refused
                    + ", expected NeedsResumption with that point");
    unchanged(phased, phasedBefore, Rule.R10_12, "claimAndComplete of a record to resume");
    ranTimes(runs, 1, Rule.R10_12, "the takeover and the refusal");
    requireMarkers(Rule.R10_12, "after the takeover and the refusal", "plain shipped");
  }

  @Test
  @DisplayName(
      "Rule 10.13: of concurrent claimAndComplete calls of one request, the work commits once and"
          + " the others replay it")
  default void optional_10_13_concurrentDuplicatesCommitOnceAndReplay() throws Exception {
    requireCapability();
    RecordId id = id("k1");
    AtomicInteger runs = new AtomicInteger();
    List<OneTransactionOutcome> outcomes =
        concurrently(
            RACERS,
            id,
            racer ->
                (tx, claim) -> {
                  runs.incrementAndGet();
                  write(tx, "k1 by racer " + racer);
                  // the transaction stays open a while, so that the others meet it
                  Thread.sleep(200);
                  return Samples.response("racer " + racer);
                });
    List<OneTransactionOutcome.Committed> won =
        outcomes.stream()
            .filter(OneTransactionOutcome.Committed.class::isInstance)
            .map(OneTransactionOutcome.Committed.class::cast)
            .toList();
    verify()
        .check(
            won.size() == 1,
            Rule.R10_13,
            () ->
                won.size()
                    + " of "
                    + RACERS
                    + " concurrent claimAndComplete calls committed, expected one: "
                    + outcomes);
    StoredResponse winner = won.get(0).response();
    for (OneTransactionOutcome o : outcomes) {
      if (o instanceof OneTransactionOutcome.NotRun n
          && n.outcome() instanceof ClaimOutcome.Completed replay) {
        verify().identical(replay.response(), winner, Rule.R10_13, "a loser's replay");
      } else {
        verify()
            .check(
                o instanceof OneTransactionOutcome.Committed
                    || (o instanceof OneTransactionOutcome.NotRun n
                        && n.outcome() instanceof ClaimOutcome.InFlight),
                Rule.R10_13,
                () -> "a loser got " + o + ", expected the winner's replay or InFlight");
      }
    }
    List<String> committed = markers();
    verify()
        .check(
            committed.size() == 1,
            Rule.R10_13,
            () ->
                "after "
                    + RACERS
                    + " concurrent claimAndComplete calls the committed business writes are "
                    + committed
                    + " (the work ran "
                    + runs.get()
                    + " times), expected one run's");
  }
}
