package dev.idempotency.tck;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.spi.TransactionalWork;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.ObservedExecution;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.TckClock;
import dev.idempotency.tck.internal.Timing;
import dev.idempotency.tck.internal.Verifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The words section 10's tests are written in: the store under test, owners that claimed a record,
 * work that writes business markers through the transaction it is given, and the checks that recur
 * (the committed markers, an unchanged record, the callbacks' bracket, a commit reported once
 * visible), each failing with the rule it is given.
 *
 * <p>Section 10's test interfaces ({@code Section10Transactions}, {@code Section10Callbacks}, and
 * {@code Section10OneTransaction} through {@code OneTransactionFixture}) extend this one, and
 * {@link TransactionalKeyStoreContract} runs each through a {@code @Nested} class that returns the
 * test's {@link TransactionalUnderTest}, as {@link ContractFixture} does for sections 1 to 9.
 *
 * @param <T> the store's transaction handle
 */
interface TransactionalFixture<T> {
  /** The fingerprint of the one request the section's tests send. */
  Fingerprint FP = Samples.fingerprint("POST /orders {\"item\":7}");

  /** The running test's store, clock, timing, verifier and hooks. */
  TransactionalUnderTest<T> underTest();

  default TransactionalKeyStore<T> store() {
    return underTest().store();
  }

  default TckClock clock() {
    return underTest().clock();
  }

  default Timing timing() {
    return underTest().timing();
  }

  default Verifier verify() {
    return underTest().verifier();
  }

  /** The contract's {@code write} hook: a business write of {@code marker} through {@code tx}. */
  default void write(T tx, String marker) throws Exception {
    underTest().hooks().write(tx, marker);
  }

  /** A call of the store that may throw anything. */
  @FunctionalInterface
  interface Call<R> {
    R run() throws Exception;
  }

  default RecordId id(String key) {
    return Samples.id("tenant-1", key);
  }

  default ClaimRequest request(RecordId id, Duration lease) {
    return new ClaimRequest(id, FP, clock().instant(), lease, timing().stableWindow());
  }

  /**
   * Claims {@code id} afresh and returns its owner's execution, at the claim's time and with its
   * lease.
   */
  default ObservedExecution owner(RecordId id, Duration lease) {
    ClaimRequest request = request(id, lease);
    ClaimOutcome.Claimed c =
        verify().claimed(store().claim(request), Rule.R1_1, "the first claim of " + id);
    return new ObservedExecution(store(), id, c, request.now(), lease, this::markers);
  }

  /** The committed markers, sorted. */
  default List<String> markers() throws Exception {
    List<String> committed =
        new ArrayList<>(
            Objects.requireNonNull(underTest().hooks().committedMarkers(), "committedMarkers()"));
    committed.sort(null);
    return committed;
  }

  /** Requires the committed business writes to be {@code expected}, in any order. */
  default void requireMarkers(Rule rule, String situation, String... expected) throws Exception {
    List<String> want = new ArrayList<>(Arrays.asList(expected));
    want.sort(null);
    List<String> got = markers();
    verify()
        .check(
            got.equals(want),
            rule,
            () -> situation + ": the committed business writes are " + got + ", expected " + want);
  }

  /** The record {@code id}, which must be there. */
  default RecordSnapshot present(RecordId id, Rule rule, String situation) {
    return store()
        .lookup(id)
        .orElseThrow(() -> verify().violation(rule, situation + ": lookup(" + id + ") is empty"));
  }

  /**
   * Requires the record {@code id} to read as it did {@code before} the calls of {@code situation}.
   */
  default void unchanged(
      RecordId id, Optional<RecordSnapshot> before, Rule rule, String situation) {
    Optional<RecordSnapshot> after = store().lookup(id);
    verify()
        .check(
            after.equals(before),
            rule,
            () ->
                situation
                    + " changed the record: before "
                    + Describe.snapshot(before)
                    + ", after "
                    + Describe.snapshot(after));
  }

  /** Work that reports its run, writes {@code marker} and returns {@code result}. */
  default <R> TransactionalWork<T, R> work(ObservedExecution ex, String marker, R result) {
    return tx -> {
      ex.workRuns();
      write(tx, marker);
      return result;
    };
  }

  /** Work that reports its run, writes {@code marker} and throws {@code failure}. */
  default <R> TransactionalWork<T, R> failing(
      ObservedExecution ex, String marker, Exception failure) {
    return tx -> {
      ex.workRuns();
      write(tx, marker);
      throw failure;
    };
  }

  /**
   * Work that counts its runs in {@code runs}, writes {@code marker} with the run's number, has the
   * store abort its first run retryably, and returns {@code result} of the run's number.
   */
  default <R> TransactionalWork<T, R> abortedOnce(
      ObservedExecution ex, AtomicInteger runs, String marker, IntFunction<R> result) {
    return tx -> {
      int run = runs.incrementAndGet();
      ex.workRuns();
      write(tx, marker + ", run " + run);
      if (run == 1) {
        underTest().hooks().abortRetryably(tx);
      }
      return result.apply(run);
    };
  }

  /** Runs a call that must commit; what it threw is a violation of {@code rule}. */
  default <R> R commits(Rule rule, String situation, Call<R> call) {
    try {
      return call.run();
    } catch (Exception e) {
      throw verify().violation(rule, situation + ": expected it to commit, but it threw " + e, e);
    }
  }

  /** What {@code call} threw, or null if it returned. */
  default @Nullable Exception thrownBy(Call<?> call) {
    try {
      call.run();
      return null;
    } catch (Exception e) {
      return e;
    }
  }

  /** What a call threw, in a failure message. */
  default String describe(@Nullable Throwable t) {
    return t == null ? "nothing (it returned)" : t.toString();
  }

  /** Requires every transaction the store opened for {@code ex} to be closed, in order. */
  default void requireBracket(ObservedExecution ex, String situation) {
    String problem = ex.bracketProblem();
    verify()
        .check(
            problem == null,
            Rule.R10_6,
            () ->
                situation + ": " + problem + "; the callbacks and runs, in order: " + ex.events());
  }

  /** Requires the store to have reported no commit for {@code ex}. */
  default void requireNoCommitReported(ObservedExecution ex, String situation) {
    verify()
        .check(
            ex.commits().isEmpty(),
            Rule.R10_6,
            () ->
                situation
                    + " rolled back, but the store reported a commit; the callbacks and runs, in"
                    + " order: "
                    + ex.events());
  }

  /**
   * Requires the store to have reported one commit, of {@code expected}, inside a closed bracket of
   * callbacks, and a read at that instant to have seen {@code marker} committed and the record as
   * {@code recordShows} says.
   */
  default void requireVisibleWhenReported(
      ObservedExecution ex,
      String situation,
      Object expected,
      String marker,
      Predicate<RecordSnapshot> recordShows,
      String expectation) {
    requireBracket(ex, situation);
    List<ObservedExecution.Commit> commits = ex.commits();
    Verifier verify = verify();
    verify.check(
        commits.size() == 1,
        Rule.R10_6,
        () ->
            situation
                + ": expected one commit reported, got "
                + commits.size()
                + "; the callbacks and runs, in order: "
                + ex.events());
    ObservedExecution.Commit c = commits.get(0);
    verify.check(
        c.readFailure() == null,
        Rule.R10_6,
        () ->
            situation
                + ": committedMarkers() threw inside the commit callback: "
                + c.readFailure());
    String reportedAt =
        situation
            + " was reported as "
            + ex.events()
            + "; at that instant the committed writes were "
            + c.markers()
            + " and the record "
            + Describe.snapshot(c.record())
            + ", expected "
            + expectation;
    verify.check(
        expected instanceof StoredResponse response
            ? c.reported() instanceof StoredResponse r && Samples.identical(r, response)
            : expected.equals(c.reported()),
        Rule.R10_6,
        () -> reportedAt + " (the reported point or response differs)");
    verify.check(
        c.markers().contains(marker),
        Rule.R10_6,
        () -> reportedAt + " (the business write was not visible)");
    verify.check(
        c.record().filter(recordShows).isPresent(),
        Rule.R10_6,
        () -> reportedAt + " (the record did not show the commit)");
    // the phase closes when its transaction has ended: closed earlier, the engine would renew the
    // lease inside it
    List<List<String>> atClose = ex.markersAtClose();
    verify.check(
        !atClose.isEmpty() && atClose.get(atClose.size() - 1).contains(marker),
        Rule.R10_6,
        () ->
            situation
                + ": at its last phaseClosed the committed writes were "
                + (atClose.isEmpty() ? "(no phaseClosed)" : atClose.get(atClose.size() - 1))
                + ", expected "
                + marker
                + " committed: phaseClosed must come after the commit (or the rollback), never"
                + " before");
  }
}
