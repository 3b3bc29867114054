package dev.idempotency.tck;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Owner;
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
import org.jspecify.annotations.Nullable;

/**
 * The words section 10's tests are written in: the store under test, owners that claimed a record,
 * work that writes business markers through the transaction it is given, the store's two calls for
 * an owner, and the checks that recur (the committed markers, an unchanged record), each failing
 * with the rule it is given.
 *
 * <p>Section 10's test interfaces ({@code Section10Transactions}, {@code Section10Declarations},
 * and {@code Section10OneTransaction} through {@code OneTransactionFixture}) extend this one, and
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
  default Owner owner(RecordId id, Duration lease) {
    ClaimRequest request = request(id, lease);
    ClaimOutcome.Claimed c =
        verify().claimed(store().claim(request), Rule.R1_1, "the first claim of " + id);
    return new Owner(id, c, request.now(), lease);
  }

  /** The store's {@code inPhase} for {@code ex}: its record, fence, time and lease. */
  default <R> R inPhase(Owner ex, RecoveryPoint next, TransactionalWork<T, R> work)
      throws Exception {
    return store().inPhase(ex.recordId(), ex.fence(), next, ex.now(), ex.lease(), work);
  }

  /** The store's {@code completeWith} for {@code ex}: its record, fence and time. */
  default StoredResponse completeWith(Owner ex, TransactionalWork<T, StoredResponse> work)
      throws Exception {
    return store().completeWith(ex.recordId(), ex.fence(), ex.now(), work);
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
  default <R> TransactionalWork<T, R> work(Owner ex, String marker, R result) {
    return tx -> {
      ex.workRuns();
      write(tx, marker);
      return result;
    };
  }

  /** Work that reports its run, writes {@code marker} and throws {@code failure}. */
  default <R> TransactionalWork<T, R> failing(Owner ex, String marker, Exception failure) {
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
      Owner ex, AtomicInteger runs, String marker, IntFunction<R> result) {
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
}
