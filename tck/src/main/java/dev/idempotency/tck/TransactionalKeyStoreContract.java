package dev.idempotency.tck;

import dev.idempotency.Execution;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionCallbacks;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.spi.TransactionalWork;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Knobs;
import dev.idempotency.tck.internal.ObservedExecution;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.TckClock;
import dev.idempotency.tck.internal.Timeline;
import dev.idempotency.tck.internal.Timing;
import dev.idempotency.tck.internal.Verifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of a {@link TransactionalKeyStore}: rules 10.x of the TCK's {@code SPEC.md}, as
 * JUnit 5 tests. A transactional store passes {@link KeyStoreContract} for its {@code KeyStore}
 * methods and this class for {@code inPhase} and {@code completeWith}.
 *
 * <p>A store's test module extends it with a factory and two hooks that let the rules see business
 * writes: one writes a marker through the transaction handle the work is given, the other reads the
 * markers committed so far, outside any transaction. For a JDBC store:
 *
 * <pre>{@code
 * class MyTransactionalContractTest extends TransactionalKeyStoreContract<Connection> {
 *   protected TransactionalKeyStore<Connection> newStore(TckContext context) { ... } // and a markers table
 *   protected void write(Connection tx, String marker) throws SQLException { ... }   // INSERT INTO markers
 *   protected List<String> committedMarkers() throws SQLException { ... }             // SELECT marker FROM markers
 *   protected boolean canAbortRetryably() { return true; }
 *   protected void abortRetryably(Connection tx) throws SQLException {
 *     throw new SQLTransactionRollbackException("injected serialization failure", "40001");
 *   }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh, empty store and calls it with an execution that stands for the
 * engine's (it implements {@link TransactionCallbacks} and records the callbacks). Rule 10.5 needs
 * {@link #abortRetryably}: without it the test is skipped, with the reason. Time is the TCK's
 * controlled clock, or real time with short leases for a store that declares {@link
 * StoreCapability#SERVER_CLOCK}, as in {@link KeyStoreContract}. Test names carry the rule ({@code
 * required_10_x_…}, {@code optional_10_5_…}), and a failure message names the rule and what to
 * check.
 *
 * <p>Every test has a deadline of 2 minutes: each makes a few dozen store calls and, in real time,
 * sleeps through at most one lease; a store that blocks (a phase that waits on a lock its own work
 * holds) fails the test that reached it instead of hanging the build.
 *
 * <p>Not thread-safe: JUnit creates one instance per test.
 *
 * <p>One file of about 900 lines (formatted to 100 columns), most of it the rules' tests: an
 * implementer extends one class and gets section 10 whole. The helpers at the top are the fixture
 * of the one {@code @Nested} section; should the section grow, its tests split into files along the
 * rules, over that fixture, as {@link KeyStoreContract}'s sections do.
 *
 * @param <T> the store's transaction handle, for example {@code java.sql.Connection}
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
public abstract class TransactionalKeyStoreContract<T> {
  private static final Fingerprint FP = Samples.fingerprint("POST /orders {\"item\":7}");

  private TckContext context;
  private TransactionalKeyStore<T> store;
  private TckClock clock;
  private Timing timing;
  private Verifier verify;

  /** For subclasses. */
  protected TransactionalKeyStoreContract() {}

  /**
   * A fresh, empty store for one test, with an empty place for markers. Register what must be
   * closed afterwards with {@link TckContext#onClose}.
   *
   * @param context the test the store is for
   * @return the store to test; never null
   * @throws Exception if the store cannot be created (the test then fails, not a rule)
   */
  protected abstract TransactionalKeyStore<T> newStore(TckContext context) throws Exception;

  /**
   * A business write of {@code marker} through {@code tx}, as an application's work makes one: it
   * commits or rolls back with the store's transaction. Markers are unique within a test.
   *
   * @param tx the transaction handle the work was given
   * @param marker what to write
   * @throws Exception if the write fails (the test then fails)
   */
  protected abstract void write(T tx, String marker) throws Exception;

  /**
   * The markers committed so far to this test's store, in any order, one entry per committed write:
   * read outside any transaction, as another application instance would see them.
   *
   * @return the committed markers
   * @throws Exception if they cannot be read (the test then fails)
   */
  protected abstract List<String> committedMarkers() throws Exception;

  /**
   * Whether {@link #abortRetryably} is implemented; default false, and rule 10.5 is skipped, with
   * the reason.
   *
   * @return true if {@link #abortRetryably} makes the store roll back and run the work again
   */
  protected boolean canAbortRetryably() {
    return false;
  }

  /**
   * Makes the store roll the transaction of {@code tx} back and run the work again, as a
   * serialization failure or a deadlock would: throw what the store treats as retryable (a JDBC
   * store: an {@code SQLException} with SQLState 40001), or mark {@code tx} so that its commit
   * fails that way.
   *
   * @param tx the transaction handle of the run to abort
   * @throws Exception the exception that makes the store run the work again, if that is how it is
   *     told
   */
  protected void abortRetryably(T tx) throws Exception {
    throw new UnsupportedOperationException(
        "abortRetryably is not implemented; canAbortRetryably() is false");
  }

  /** Creates this test's store, clock and timing; called by JUnit before every test. */
  @BeforeEach
  protected final void setUpTransactionalKeyStoreContract(TestInfo info) throws Exception {
    String name =
        getClass().getSimpleName()
            + "."
            + info.getTestClass().map(Class::getSimpleName).orElse("?")
            + "#"
            + info.getTestMethod()
                .map(java.lang.reflect.Method::getName)
                .orElse(info.getDisplayName());
    long seed = Knobs.seed().orElseGet(() -> new SplittableRandom().nextLong());
    context = new TckContext(name, seed);
    verify = new Verifier(name, seed);
    store = Objects.requireNonNull(newStore(context), "newStore(TckContext) returned null");
    boolean serverClock = store.capabilities().contains(StoreCapability.SERVER_CLOCK);
    clock = serverClock ? TckClock.system() : TckClock.controlled(TckClock.CONTROLLED_START);
    timing = serverClock ? Timing.realTime(Knobs.serverClockLeaseMillis()) : Timing.controlled();
  }

  /** Closes what the factory registered; called by JUnit after every test. */
  @AfterEach
  protected final void tearDownTransactionalKeyStoreContract() throws Exception {
    if (context != null) {
      context.close();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // helpers

  /** A call of the store that may throw anything. */
  private interface Call<R> {
    R run() throws Exception;
  }

  private static RecordId id(String key) {
    return Samples.id("tenant-1", key);
  }

  private ClaimRequest request(RecordId id, Duration lease) {
    return new ClaimRequest(id, FP, clock.instant(), lease, timing.stableWindow());
  }

  /**
   * Claims {@code id} afresh and returns its owner's execution, at the claim's time and with its
   * lease.
   */
  private ObservedExecution owner(RecordId id, Duration lease) {
    ClaimRequest request = request(id, lease);
    ClaimOutcome.Claimed c =
        verify.claimed(store.claim(request), Rule.R1_1, "the first claim of " + id);
    return new ObservedExecution(store, id, c, request.now(), lease, this::markers);
  }

  /** The committed markers, sorted. */
  private List<String> markers() throws Exception {
    List<String> committed =
        new ArrayList<>(Objects.requireNonNull(committedMarkers(), "committedMarkers()"));
    committed.sort(null);
    return committed;
  }

  private void requireMarkers(Rule rule, String situation, String... expected) throws Exception {
    List<String> want = new ArrayList<>(Arrays.asList(expected));
    want.sort(null);
    List<String> got = markers();
    verify.check(
        got.equals(want),
        rule,
        () -> situation + ": the committed business writes are " + got + ", expected " + want);
  }

  private RecordSnapshot present(RecordId id, Rule rule, String situation) {
    return store
        .lookup(id)
        .orElseThrow(() -> verify.violation(rule, situation + ": lookup(" + id + ") is empty"));
  }

  private void unchanged(
      RecordId id, Optional<RecordSnapshot> before, Rule rule, String situation) {
    Optional<RecordSnapshot> after = store.lookup(id);
    verify.check(
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
  private <R> TransactionalWork<T, R> work(ObservedExecution ex, String marker, R result) {
    return tx -> {
      ex.workRuns();
      write(tx, marker);
      return result;
    };
  }

  /** Work that reports its run, writes {@code marker} and throws {@code failure}. */
  private <R> TransactionalWork<T, R> failing(
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
  private <R> TransactionalWork<T, R> abortedOnce(
      ObservedExecution ex, AtomicInteger runs, String marker, IntFunction<R> result) {
    return tx -> {
      int run = runs.incrementAndGet();
      ex.workRuns();
      write(tx, marker + ", run " + run);
      if (run == 1) {
        abortRetryably(tx);
      }
      return result.apply(run);
    };
  }

  /** Runs a call that must commit; what it threw is a violation of {@code rule}. */
  private <R> R commits(Rule rule, String situation, Call<R> call) {
    try {
      return call.run();
    } catch (Exception e) {
      throw verify.violation(rule, situation + ": expected it to commit, but it threw " + e, e);
    }
  }

  /** What {@code call} threw, or null if it returned. */
  private static @Nullable Exception thrownBy(Call<?> call) {
    try {
      call.run();
      return null;
    } catch (Exception e) {
      return e;
    }
  }

  private static String describe(@Nullable Throwable t) {
    return t == null ? "nothing (it returned)" : t.toString();
  }

  private void requireBracket(ObservedExecution ex, String situation) {
    String problem = ex.bracketProblem();
    verify.check(
        problem == null,
        Rule.R10_6,
        () ->
            situation + ": " + problem + "; the callbacks and runs, in" + " order: " + ex.events());
  }

  private void requireNoCommitReported(ObservedExecution ex, String situation) {
    verify.check(
        ex.commits().isEmpty(),
        Rule.R10_6,
        () ->
            situation
                + " rolled back, but the store reported a"
                + " commit; the callbacks and runs, in order: "
                + ex.events());
  }

  /**
   * Requires the store to have reported one commit, of {@code expected}, inside a closed bracket of
   * callbacks, and a read at that instant to have seen {@code marker} committed and the record as
   * {@code recordShows} says.
   */
  private void requireVisibleWhenReported(
      ObservedExecution ex,
      String situation,
      Object expected,
      String marker,
      Predicate<RecordSnapshot> recordShows,
      String expectation) {
    requireBracket(ex, situation);
    List<ObservedExecution.Commit> commits = ex.commits();
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
                + ": committedMarkers() threw inside the"
                + " commit callback: "
                + c.readFailure());
    boolean reported =
        expected instanceof StoredResponse response
            ? c.reported() instanceof StoredResponse r && Samples.identical(r, response)
            : expected.equals(c.reported());
    verify.check(
        reported && c.markers().contains(marker) && c.record().filter(recordShows).isPresent(),
        Rule.R10_6,
        () ->
            situation
                + " was reported as "
                + ex.events()
                + "; at that instant the committed writes"
                + " were "
                + c.markers()
                + " and the record "
                + Describe.snapshot(c.record())
                + ", expected "
                + expectation);
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
                + " committed: phaseClosed must come after the commit (or the rollback), never before");
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** Rules 10.x: the business work and the fenced write in one transaction. */
  @Nested
  @DisplayName("10. Transactional stores")
  class TransactionalRules {

    @Test
    @DisplayName("Rule 10.1: completeWith commits the work and the completion together")
    void required_10_1_completeWithCommitsTheWorkAndTheCompletionTogether() throws Exception {
      RecordId id = id("k1");
      ObservedExecution ex = owner(id, timing.stableLease());
      StoredResponse response = Samples.response("completeWith");
      StoredResponse returned =
          commits(
              Rule.R10_1,
              "completeWith of " + id,
              () -> store.completeWith(ex, work(ex, "k1 shipped", response)));
      verify.check(
          returned != null && Samples.identical(returned, response),
          Rule.R10_1,
          () ->
              "completeWith"
                  + " returned "
                  + Describe.response(returned)
                  + ", expected the work's "
                  + Describe.response(response));
      requireMarkers(Rule.R10_1, "after completeWith returned", "k1 shipped");
      RecordSnapshot s = present(id, Rule.R10_1, "after completeWith returned");
      verify.check(
          s.state() == KeyState.COMPLETE
              && s.fence().equals(ex.fence())
              && s.response().filter(r -> Samples.identical(r, response)).isPresent(),
          Rule.R10_1,
          () ->
              "after"
                  + " completeWith returned lookup shows "
                  + Describe.snapshot(s)
                  + ", expected COMPLETE under "
                  + ex.fence()
                  + " with "
                  + Describe.response(response));
      verify.check(
          timing.isRealTime() || s.completedAt().equals(Optional.of(ex.now())),
          Rule.R10_1,
          () ->
              "the completion's time is "
                  + s.completedAt().orElse(null)
                  + ", expected the execution's now, "
                  + ex.now());
      ClaimOutcome replay = store.claim(request(id, timing.stableLease()));
      ClaimOutcome.Completed c = verify.completed(replay, Rule.R10_1, "a retry after completeWith");
      verify.check(
          Samples.identical(c.response(), response),
          Rule.R10_1,
          () ->
              "a retry after completeWith"
                  + " replayed "
                  + Describe.response(c.response())
                  + ", expected "
                  + Describe.response(response));
    }

    @Test
    @DisplayName(
        "Rule 10.2: inPhase commits the work and the recovery point together; a takeover resumes from it")
    void required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether() throws Exception {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      // the phase runs half a lease after the claim, so a phase that does not renew the lease shows
      // its old end
      Timeline tl = Timeline.start(clock, timing);
      ObservedExecution claimedAt = owner(id, lease);
      tl.at(lease.dividedBy(2));
      ObservedExecution ex = claimedAt.at(clock.instant());
      RecoveryPoint charged = Samples.point("charged");
      RecoveryPoint shipped = Samples.point("shipped");
      String result =
          commits(
              Rule.R10_2,
              "the first phase of " + id,
              () -> store.inPhase(ex, charged, work(ex, "k1 charged", "charge-7")));
      verify.check(
          "charge-7".equals(result),
          Rule.R10_2,
          () -> "inPhase returned " + result + ", expected the" + " work's result charge-7");
      requireMarkers(Rule.R10_2, "after the first phase returned", "k1 charged");
      RecordSnapshot s = present(id, Rule.R10_2, "after the first phase returned");
      verify.check(
          s.state() == KeyState.IN_FLIGHT
              && s.fence().equals(ex.fence())
              && s.recoveryPoint().equals(Optional.of(charged)),
          Rule.R10_2,
          () ->
              "after the phase to "
                  + charged.name()
                  + " lookup shows "
                  + Describe.snapshot(s)
                  + ", expected IN_FLIGHT under "
                  + ex.fence()
                  + " at that point");
      verify.check(
          timing.isRealTime() || s.leaseExpiresAt().equals(Optional.of(ex.now().plus(lease))),
          Rule.R10_2,
          () ->
              "the phase's lease ends at "
                  + s.leaseExpiresAt().orElse(null)
                  + ", expected the"
                  + " execution's now + lease, "
                  + ex.now().plus(lease));
      commits(
          Rule.R10_2,
          "the second phase of " + id,
          () -> store.inPhase(ex, shipped, work(ex, "k1 shipped", "")));
      requireMarkers(Rule.R10_2, "after the second phase returned", "k1 charged", "k1 shipped");
      Timeline afterPhases = Timeline.start(clock, timing);
      afterPhases.at(lease);
      ClaimOutcome.Claimed t =
          verify.claimed(
              store.claim(request(id, lease)),
              Rule.R10_2,
              "a claim of the same" + " request once the lease the last phase renewed expired");
      verify.check(
          t.takeover()
              && t.fence().isNewerThan(ex.fence())
              && t.resumeFrom().equals(Optional.of(shipped)),
          Rule.R10_2,
          () ->
              "the takeover after two phases returned "
                  + Describe.outcome(t)
                  + ", expected"
                  + " takeover=true, a fence newer than "
                  + ex.fence()
                  + " and resumeFrom="
                  + shipped.name());
    }

    @Test
    @DisplayName(
        "Rule 10.3: work that throws rolls everything back, and its exception comes out as it was")
    void required_10_3_workThatThrowsRollsBackEverythingAndIsRethrownAsIs() throws Exception {
      RecordId id = id("k1");
      ObservedExecution ex = owner(id, timing.stableLease());
      Optional<RecordSnapshot> before = store.lookup(id);
      Exception declined = new Exception("card declined (a checked exception of the work)");
      Exception inPhase =
          thrownBy(
              () ->
                  store.inPhase(ex, Samples.point("charged"), failing(ex, "k1 charged", declined)));
      verify.check(
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
      Exception completion =
          thrownBy(() -> store.completeWith(ex, failing(ex, "k1 shipped", outOfStock)));
      verify.check(
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
          () ->
              store.completeWith(ex, work(ex, "k1 shipped at last", Samples.response("at last"))));
      requireMarkers(Rule.R10_3, "after the owner's completeWith", "k1 shipped at last");
    }

    @Test
    @DisplayName("Rule 10.4: a stale fence throws LeaseLostException and rolls the work back")
    void required_10_4_staleFenceRollsTheWorkBack() throws Exception {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = Timeline.start(clock, timing);
      ObservedExecution ex = owner(id, lease);
      // the lease runs out before the work starts, and another owner takes the record over while
      // the work runs
      tl.at(lease);
      AtomicReference<ClaimOutcome> takeover = new AtomicReference<>();
      Exception completion =
          thrownBy(
              () ->
                  store.completeWith(
                      ex,
                      tx -> {
                        ex.workRuns();
                        write(tx, "k1 shipped by the stale owner");
                        takeover.compareAndSet(
                            null, store.claim(request(id, timing.stableLease())));
                        return Samples.response("stale");
                      }));
      verify.check(
          takeover.get() != null,
          Rule.R10_4,
          () -> "completeWith did not run the work; it threw " + describe(completion));
      ClaimOutcome.Claimed taker =
          verify.claimed(
              takeover.get(),
              Rule.R4_2,
              "a claim of the same request, once the"
                  + " lease expired, while the owner's work ran");
      verify.check(
          completion instanceof LeaseLostException,
          Rule.R10_4,
          () ->
              "completeWith whose record was taken"
                  + " over while its work ran threw "
                  + describe(completion)
                  + ", expected LeaseLostException");
      String lostMessage =
          String.valueOf(Objects.requireNonNull(completion, "checked above").getMessage());
      verify.check(
          lostMessage.contains(id.key().value()),
          Rule.R10_4,
          () ->
              "the LeaseLostException of a stale"
                  + " completeWith should name the record "
                  + id
                  + ", its message is: "
                  + lostMessage);
      requireBracket(ex, "a completion whose record was taken over while its work ran");
      requireNoCommitReported(ex, "a completion whose record was taken over while its work ran");
      requireMarkers(Rule.R10_4, "after a completion with a fence gone stale while the work ran");
      RecordSnapshot s = present(id, Rule.R10_4, "after the stale owner's completeWith");
      verify.check(
          s.state() == KeyState.IN_FLIGHT
              && s.fence().equals(taker.fence())
              && s.response().isEmpty(),
          Rule.R10_4,
          () ->
              "after the stale owner's completeWith lookup shows "
                  + Describe.snapshot(s)
                  + ", expected IN_FLIGHT under the new owner's "
                  + taker.fence());
      Optional<RecordSnapshot> before = store.lookup(id);
      Exception phase =
          thrownBy(
              () ->
                  store.inPhase(
                      ex, Samples.point("charged"), work(ex, "k1 charged by the stale owner", "")));
      verify.check(
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
    void optional_10_5_workRunAgainCommitsOnlyItsLastRun() throws Exception {
      Assumptions.assumeTrue(
          canAbortRetryably(),
          "the contract's subclass cannot make the store abort a"
              + " transaction retryably (override canAbortRetryably and abortRetryably to test rule 10.5)");
      RecordId id = id("k1");
      ObservedExecution ex = owner(id, timing.stableLease());
      RecoveryPoint charged = Samples.point("charged");
      AtomicInteger phaseRuns = new AtomicInteger();
      String result =
          commits(
              Rule.R10_5,
              "a phase whose first run was aborted",
              () ->
                  store.inPhase(
                      ex,
                      charged,
                      abortedOnce(ex, phaseRuns, "k1 charged", run -> "charge of run " + run)));
      int phaseRan = phaseRuns.get();
      verify.check(
          phaseRan >= 2 && ("charge of run " + phaseRan).equals(result),
          Rule.R10_5,
          () ->
              "the phase"
                  + " whose first run was aborted ran "
                  + phaseRan
                  + " time(s) and returned "
                  + result
                  + ", expected at"
                  + " least 2 runs and the last run's result");
      requireMarkers(
          Rule.R10_5, "after a phase whose first run was aborted", "k1 charged, run " + phaseRan);
      AtomicInteger completionRuns = new AtomicInteger();
      StoredResponse returned =
          commits(
              Rule.R10_5,
              "a completion whose first run was aborted",
              () ->
                  store.completeWith(
                      ex,
                      abortedOnce(
                          ex,
                          completionRuns,
                          "k1 shipped",
                          run -> Samples.response("run " + run))));
      int completionRan = completionRuns.get();
      StoredResponse last = Samples.response("run " + completionRan);
      verify.check(
          completionRan >= 2 && returned != null && Samples.identical(returned, last),
          Rule.R10_5,
          () ->
              "the completion whose first run was aborted ran "
                  + completionRan
                  + " time(s) and returned "
                  + Describe.response(returned)
                  + ", expected at least 2 runs and the last run's response");
      requireMarkers(
          Rule.R10_5,
          "after a completion whose first run was aborted",
          "k1 charged, run " + phaseRan,
          "k1 shipped, run " + completionRan);
      RecordSnapshot s = present(id, Rule.R10_5, "after the completion");
      verify.check(
          s.recoveryPoint().equals(Optional.of(charged))
              && s.response().filter(r -> Samples.identical(r, last)).isPresent(),
          Rule.R10_5,
          () ->
              "after the re-run"
                  + " phase and completion lookup shows "
                  + Describe.snapshot(s)
                  + ", expected point "
                  + charged.name()
                  + " and the last run's response");
      List<Object> reported =
          ex.commits().stream().map(ObservedExecution.Commit::reported).toList();
      verify.check(
          reported.size() == 2
              && charged.equals(reported.get(0))
              && reported.get(1) instanceof StoredResponse r
              && Samples.identical(r, last),
          Rule.R10_5,
          () ->
              "the commits reported were "
                  + ex.events()
                  + ", expected the phase to "
                  + charged.name()
                  + " and the last run's response, once each");
    }

    @Test
    @DisplayName(
        "Rule 10.6: the callbacks bracket the transaction, and a commit is reported once it is visible")
    void required_10_6_callbacksBracketTheWorkAndReportTheCommitOnceVisible() throws Exception {
      RecordId id = id("k1");
      ObservedExecution ex = owner(id, timing.stableLease());
      RecoveryPoint charged = Samples.point("charged");
      commits(
          Rule.R10_2,
          "a phase of " + id,
          () -> store.inPhase(ex, charged, work(ex, "k1 charged", "")));
      requireVisibleWhenReported(
          ex,
          "the phase to " + charged.name(),
          charged,
          "k1 charged",
          r -> r.recoveryPoint().equals(Optional.of(charged)),
          "phaseCommitted(" + charged.name() + ") with the" + " phase's write and point visible");
      ex.forget();
      StoredResponse response = Samples.response("callbacks");
      commits(
          Rule.R10_1,
          "completeWith of " + id,
          () -> store.completeWith(ex, work(ex, "k1 shipped", response)));
      requireVisibleWhenReported(
          ex,
          "the completion",
          response,
          "k1 shipped",
          r -> r.state() == KeyState.COMPLETE,
          "completionCommitted with the work's response, its write visible and the record COMPLETE");
    }

    @Test
    @DisplayName(
        "Rule 10.6: a transaction that rolled back is closed and never reported as committed")
    void required_10_6_rolledBackTransactionsAreClosedAndNeverReportedCommitted() throws Exception {
      RecordId id = id("k1");
      ObservedExecution ex = owner(id, timing.stableLease());
      thrownBy(
          () ->
              store.inPhase(
                  ex,
                  Samples.point("charged"),
                  failing(ex, "k1 charged", new IllegalStateException("card declined"))));
      requireBracket(ex, "a phase whose work threw");
      requireNoCommitReported(ex, "a phase whose work threw");
      thrownBy(
          () ->
              store.completeWith(
                  ex, failing(ex, "k1 shipped", new IllegalStateException("out of stock"))));
      requireBracket(ex, "a phase and a completion whose work threw");
      requireNoCommitReported(ex, "a completion whose work threw");
      // the record released and claimed by another request: the execution's fence is stale
      store.release(id, ex.fence(), clock.instant());
      verify.claimed(
          store.claim(request(id, timing.stableLease())),
          Rule.R5_3,
          "a claim of " + id + " after its" + " release");
      ex.forget();
      Exception stale =
          thrownBy(() -> store.completeWith(ex, work(ex, "k1 stale", Samples.response("stale"))));
      verify.check(
          stale instanceof LeaseLostException,
          Rule.R10_4,
          () ->
              "completeWith with the fence of a"
                  + " released record threw "
                  + describe(stale)
                  + ", expected LeaseLostException");
      requireBracket(ex, "a completion with a stale fence");
      requireNoCommitReported(ex, "a completion with a stale fence");
      thrownBy(() -> store.inPhase(ex, Samples.point("charged"), work(ex, "k1 stale phase", "")));
      requireBracket(ex, "a completion and a phase with a stale fence");
      requireNoCommitReported(ex, "a phase with a stale fence");
    }

    @Test
    @DisplayName(
        "Rule 10.7: an Execution without the callbacks, or a null argument, is refused before any work")
    @SuppressWarnings(
        "NullAway") // rule 10.7 passes null where the SPI forbids it, to see the store refuse it
    void required_10_7_foreignExecutionOrNullArgumentIsRefusedBeforeAnyWork() throws Exception {
      RecordId id = id("k1");
      ObservedExecution ex = owner(id, timing.stableLease());
      Optional<RecordSnapshot> before = store.lookup(id);
      Execution foreign = ex.withoutCallbacks();
      RecoveryPoint p = Samples.point("charged");
      AtomicInteger runs = new AtomicInteger();
      TransactionalWork<T, String> phase =
          tx -> {
            runs.incrementAndGet();
            write(tx, "k1 charged " + runs.get());
            return "";
          };
      TransactionalWork<T, StoredResponse> completion =
          tx -> {
            runs.incrementAndGet();
            write(tx, "k1 shipped " + runs.get());
            return Samples.response("refused");
          };
      record Refused(String call, Class<? extends Exception> expected, Call<?> run) {}
      Class<NullPointerException> npe = NullPointerException.class;
      List<Refused> refusals =
          List.of(
              new Refused(
                  "inPhase(an Execution that is not TransactionCallbacks)",
                  IllegalArgumentException.class,
                  () -> store.inPhase(foreign, p, phase)),
              new Refused(
                  "completeWith(an Execution that is not TransactionCallbacks)",
                  IllegalArgumentException.class,
                  () -> store.completeWith(foreign, completion)),
              new Refused("inPhase(null execution)", npe, () -> store.inPhase(null, p, phase)),
              new Refused("inPhase(null point)", npe, () -> store.inPhase(ex, null, phase)),
              new Refused("inPhase(null work)", npe, () -> store.inPhase(ex, p, null)),
              new Refused(
                  "completeWith(null execution)", npe, () -> store.completeWith(null, completion)),
              new Refused("completeWith(null work)", npe, () -> store.completeWith(ex, null)));
      for (Refused refused : refusals) {
        Exception thrown = thrownBy(refused.run());
        verify.check(
            refused.expected().isInstance(thrown),
            Rule.R10_7,
            () ->
                refused.call()
                    + " threw "
                    + describe(thrown)
                    + ", expected "
                    + refused.expected().getSimpleName());
        verify.check(
            runs.get() == 0 && ex.events().isEmpty(),
            Rule.R10_7,
            () ->
                refused.call()
                    + " ran the work "
                    + runs.get()
                    + " time(s) or called back "
                    + ex.events()
                    + " before refusing");
      }
      requireMarkers(Rule.R10_7, "after the refused calls");
      unchanged(id, before, Rule.R10_7, "the refused calls");
    }

    @Test
    @DisplayName("Rule 10.8: a TransactionalKeyStore declares TRANSACTIONAL")
    void required_10_8_transactionalStoreDeclaresTheCapability() {
      Set<StoreCapability> declared = store.capabilities();
      verify.check(
          declared != null && declared.contains(StoreCapability.TRANSACTIONAL),
          Rule.R10_8,
          () -> "a TransactionalKeyStore declares " + declared + ", without TRANSACTIONAL");
    }
  }
}
