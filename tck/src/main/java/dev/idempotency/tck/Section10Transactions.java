package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.tck.internal.Owner;
import dev.idempotency.tck.internal.RecordFacts;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.Timeline;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "10. Transactional stores", rules 10.1 to 10.5: what a phase and a completion
 * commit together with the caller's work, and what they roll back (a throwing work, a stale fence,
 * a retryable abort).
 *
 * <p>{@code TransactionalKeyStoreContract.TransactionRules} runs these tests against the store
 * under test.
 *
 * @param <T> the store's transaction handle
 */
interface Section10Transactions<T> extends TransactionalFixture<T> {
  @Test
  @DisplayName("Rule 10.1: completeWith commits the work and the completion together")
  default void required_10_1_completeWithCommitsTheWorkAndTheCompletionTogether() throws Exception {
    RecordId id = id("k1");
    Owner ex = owner(id, timing().stableLease());
    StoredResponse response = Samples.response("completeWith");
    StoredResponse returned =
        commits(
            Rule.R10_1,
            "completeWith of " + id,
            () -> completeWith(ex, work(ex, "k1 shipped", response)));
    verify().identical(returned, response, Rule.R10_1, "the response completeWith returned");
    requireMarkers(Rule.R10_1, "after completeWith returned", "k1 shipped");
    RecordSnapshot s = present(id, Rule.R10_1, "after completeWith returned");
    RecordFacts completed =
        verify()
            .record(s, Rule.R10_1, "after completeWith returned")
            .state(KeyState.COMPLETE)
            .fence(ex.fence())
            .response(response);
    if (!timing().isRealTime()) {
      completed.completedAt(ex.now()); // the execution's now, which a real-time store ignores
    }
    ClaimOutcome replay = store().claim(request(id, timing().stableLease()));
    ClaimOutcome.Completed c = verify().completed(replay, Rule.R10_1, "a retry after completeWith");
    verify().identical(c.response(), response, Rule.R10_1, "the response a retry replayed");
  }

  @Test
  @DisplayName(
      "Rule 10.2: inPhase commits the work and the recovery point together; a takeover resumes from it")
  default void required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether() throws Exception {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    // the phase runs half a lease after the claim, so a phase that does not renew the lease shows
    // its old end
    Timeline tl = Timeline.start(clock(), timing());
    Owner claimedAt = owner(id, lease);
    tl.at(lease.dividedBy(2));
    Owner ex = claimedAt.at(clock().instant());
    RecoveryPoint charged = Samples.point("charged");
    RecoveryPoint shipped = Samples.point("shipped");
    String result =
        commits(
            Rule.R10_2,
            "the first phase of " + id,
            () -> inPhase(ex, charged, work(ex, "k1 charged", "charge-7")));
    verify()
        .check(
            "charge-7".equals(result),
            Rule.R10_2,
            () -> "inPhase returned " + result + ", expected the work's result charge-7");
    requireMarkers(Rule.R10_2, "after the first phase returned", "k1 charged");
    RecordSnapshot s = present(id, Rule.R10_2, "after the first phase returned");
    RecordFacts phased =
        verify()
            .record(s, Rule.R10_2, "after the phase to " + charged.name())
            .state(KeyState.IN_FLIGHT)
            .fence(ex.fence())
            .recoveryPoint(charged);
    if (!timing().isRealTime()) {
      phased.leaseExpiresAt(ex.now().plus(lease)); // renewed from the execution's now
    }
    commits(
        Rule.R10_2,
        "the second phase of " + id,
        () -> inPhase(ex, shipped, work(ex, "k1 shipped", "")));
    requireMarkers(Rule.R10_2, "after the second phase returned", "k1 charged", "k1 shipped");
    Timeline afterPhases = Timeline.start(clock(), timing());
    afterPhases.at(lease);
    ClaimOutcome.Claimed t =
        verify()
            .claimed(
                store().claim(request(id, lease)),
                Rule.R10_2,
                "a claim of the same request once the lease the last phase renewed expired");
    verify()
        .won(t, Rule.R10_2, "the takeover after two phases")
        .takeover()
        .fenceAbove(ex.fence())
        .resumesFrom(shipped);
  }

  @Test
  @DisplayName(
      "Rule 10.3: work that throws rolls everything back, and its exception comes out as it was")
  default void required_10_3_workThatThrowsRollsBackEverythingAndIsRethrownAsIs() throws Exception {
    RecordId id = id("k1");
    Owner ex = owner(id, timing().stableLease());
    Optional<RecordSnapshot> before = store().lookup(id);
    Exception declined = new Exception("card declined (a checked exception of the work)");
    Exception inPhase =
        thrownBy(() -> inPhase(ex, Samples.point("charged"), failing(ex, "k1 charged", declined)));
    verify()
        .check(
            inPhase == declined,
            Rule.R10_3,
            () ->
                "a phase whose work threw "
                    + declined
                    + " threw "
                    + describe(inPhase)
                    + ", expected the work's exception itself");
    requireMarkers(Rule.R10_3, "after a phase whose work threw");
    unchanged(id, before, Rule.R10_3, "a phase whose work threw");
    IllegalStateException outOfStock = new IllegalStateException("out of stock");
    Exception completion = thrownBy(() -> completeWith(ex, failing(ex, "k1 shipped", outOfStock)));
    verify()
        .check(
            completion == outOfStock,
            Rule.R10_3,
            () ->
                "a completion whose work threw "
                    + outOfStock
                    + " threw "
                    + describe(completion)
                    + ", expected the work's exception itself");
    requireMarkers(Rule.R10_3, "after a completion whose work threw");
    unchanged(id, before, Rule.R10_3, "a completion whose work threw");
    commits(
        Rule.R10_3,
        "the owner's completeWith after its failed ones (it still owns the record)",
        () -> completeWith(ex, work(ex, "k1 shipped at last", Samples.response("at last"))));
    requireMarkers(Rule.R10_3, "after the owner's completeWith", "k1 shipped at last");
  }

  @Test
  @DisplayName("Rule 10.4: a stale fence throws LeaseLostException and rolls the work back")
  default void required_10_4_staleFenceRollsTheWorkBack() throws Exception {
    RecordId id = id("k1");
    Duration lease = timing().lease();
    Timeline tl = Timeline.start(clock(), timing());
    Owner ex = owner(id, lease);
    // the lease runs out before the work starts, and another owner takes the record over while
    // the work runs
    tl.at(lease);
    AtomicReference<ClaimOutcome> takeover = new AtomicReference<>();
    Exception completion =
        thrownBy(
            () ->
                completeWith(
                    ex,
                    tx -> {
                      ex.workRuns();
                      write(tx, "k1 shipped by the stale owner");
                      takeover.compareAndSet(
                          null, store().claim(request(id, timing().stableLease())));
                      return Samples.response("stale");
                    }));
    verify()
        .check(
            takeover.get() != null,
            Rule.R10_4,
            () -> "completeWith did not run the work; it threw " + describe(completion));
    ClaimOutcome.Claimed taker =
        verify()
            .claimed(
                takeover.get(),
                Rule.R4_2,
                "a claim of the same request, once the"
                    + " lease expired, while the owner's work ran");
    verify()
        .check(
            completion instanceof LeaseLostException,
            Rule.R10_4,
            () ->
                "completeWith whose record was taken"
                    + " over while its work ran threw "
                    + describe(completion)
                    + ", expected LeaseLostException");
    String lostMessage =
        String.valueOf(Objects.requireNonNull(completion, "checked above").getMessage());
    verify()
        .check(
            lostMessage.contains(id.key().value()),
            Rule.R10_4,
            () ->
                "the LeaseLostException of a stale"
                    + " completeWith should name the record "
                    + id
                    + ", its message is: "
                    + lostMessage);
    requireMarkers(Rule.R10_4, "after a completion with a fence gone stale while the work ran");
    verify()
        .record(
            present(id, Rule.R10_4, "after the stale owner's completeWith"),
            Rule.R10_4,
            "after the stale owner's completeWith")
        .state(KeyState.IN_FLIGHT)
        .fence(taker.fence())
        .noResponse();
    Optional<RecordSnapshot> before = store().lookup(id);
    Exception phase =
        thrownBy(
            () ->
                inPhase(
                    ex, Samples.point("charged"), work(ex, "k1 charged by the stale owner", "")));
    verify()
        .check(
            phase instanceof LeaseLostException,
            Rule.R10_4,
            () ->
                "a phase of the owner taken over threw "
                    + describe(phase)
                    + ", expected LeaseLostException");
    requireMarkers(Rule.R10_4, "after a phase with a stale fence");
    unchanged(id, before, Rule.R10_4, "a phase with a stale fence");
  }

  @Test
  @DisplayName("Rule 10.5: work run again after a retryable abort commits only its last run")
  default void optional_10_5_workRunAgainCommitsOnlyItsLastRun() throws Exception {
    Assumptions.assumeTrue(
        underTest().hooks().canAbortRetryably(),
        "the contract's subclass cannot make the store abort a"
            + " transaction retryably (override canAbortRetryably and abortRetryably to test rule 10.5)");
    RecordId id = id("k1");
    Owner ex = owner(id, timing().stableLease());
    RecoveryPoint charged = Samples.point("charged");
    AtomicInteger phaseRuns = new AtomicInteger();
    String result =
        commits(
            Rule.R10_5,
            "a phase whose first run was aborted",
            () ->
                inPhase(
                    ex,
                    charged,
                    abortedOnce(ex, phaseRuns, "k1 charged", run -> "charge of run " + run)));
    int phaseRan = phaseRuns.get();
    verify()
        .fact(
            Rule.R10_5,
            "the runs of a phase whose first run was aborted",
            () -> assertThat(phaseRan).isGreaterThanOrEqualTo(2));
    verify()
        .fact(
            Rule.R10_5,
            "what a phase whose first run was aborted returned (the last run's result)",
            () -> assertThat(result).isEqualTo("charge of run " + phaseRan));
    requireMarkers(
        Rule.R10_5, "after a phase whose first run was aborted", "k1 charged, run " + phaseRan);
    AtomicInteger completionRuns = new AtomicInteger();
    StoredResponse returned =
        commits(
            Rule.R10_5,
            "a completion whose first run was aborted",
            () ->
                completeWith(
                    ex,
                    abortedOnce(
                        ex, completionRuns, "k1 shipped", run -> Samples.response("run " + run))));
    int completionRan = completionRuns.get();
    StoredResponse last = Samples.response("run " + completionRan);
    verify()
        .fact(
            Rule.R10_5,
            "the runs of a completion whose first run was aborted",
            () -> assertThat(completionRan).isGreaterThanOrEqualTo(2));
    verify()
        .identical(
            returned,
            last,
            Rule.R10_5,
            "what a completion whose first run was aborted returned (the last run's response)");
    requireMarkers(
        Rule.R10_5,
        "after a completion whose first run was aborted",
        "k1 charged, run " + phaseRan,
        "k1 shipped, run " + completionRan);
    verify()
        .record(
            present(id, Rule.R10_5, "after the completion"),
            Rule.R10_5,
            "after the re-run phase and completion")
        .recoveryPoint(charged)
        .response(last);
  }
}
