package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.TckClock;
import dev.idempotency.tck.internal.Timeline;
import dev.idempotency.tck.internal.Timing;
import dev.idempotency.tck.internal.Verifier;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The words every section's tests are written in: the store under test, the clock, claims with the
 * test's defaults, and the checks that recur across sections ("the record is absent", "a fresh
 * claim", "the stored response is replayed"), each failing with the rule it is given.
 *
 * <p>Each SPEC section is a test interface extending this one ({@code Section1ClaimOutcomes} …
 * {@code Section9Arguments}), and {@link KeyStoreContract} runs each through a {@code @Nested}
 * class that returns the test's {@link KeyStoreUnderTest}: so an implementer extends one class with
 * one factory, and reads the tests of one section in one file.
 */
interface ContractFixture {
  /** The fingerprint of one request. */
  Fingerprint FP_A = Samples.fingerprint("POST /payments {\"amount\":10}");

  /** The fingerprint of another request. */
  Fingerprint FP_B = Samples.fingerprint("POST /payments {\"amount\":20}");

  /** The running test's store, clock, timing and verifier. */
  KeyStoreUnderTest underTest();

  default TckContext context() {
    return underTest().context();
  }

  default KeyStore store() {
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

  default boolean has(StoreCapability capability) {
    return underTest().has(capability);
  }

  /** The store and its two peers, [store, peer, peer]. */
  default List<KeyStore> instances() throws Exception {
    return underTest().instances();
  }

  /**
   * The seeds of this test's histories: the replayed one, or {@code count} drawn from the test's
   * seed.
   */
  default long[] historySeeds(int count) {
    return underTest().historySeeds(count);
  }

  /** The record {@code key} of the tenant the sections use unless scopes are the point. */
  default RecordId id(String key) {
    return Samples.id("tenant-1", key);
  }

  default Instant now() {
    return clock().instant();
  }

  /**
   * A timeline from now: {@code at(d)} and {@code justBefore(d)} move to (or wait for) a boundary
   * after now.
   */
  default Timeline timeline() {
    return Timeline.start(clock(), timing());
  }

  /**
   * A claim at now with the stable lease and window: long enough that no boundary passes unless a
   * test moves.
   */
  default ClaimOutcome claim(RecordId id, Fingerprint fp) {
    return claim(store(), id, fp, timing().stableLease(), timing().stableWindow());
  }

  default ClaimOutcome claim(
      KeyStore s, RecordId id, Fingerprint fp, Duration lease, Duration window) {
    return s.claim(new ClaimRequest(id, fp, now(), lease, window));
  }

  /** The first claim of {@code id}, which rule 1.1 requires to be a fresh win. */
  default ClaimOutcome.Claimed claimNew(RecordId id, Fingerprint fp, Duration lease) {
    String situation = "the first claim of " + id;
    ClaimOutcome.Claimed c =
        verify()
            .claimed(claim(store(), id, fp, lease, timing().stableWindow()), Rule.R1_1, situation);
    verify().won(c, Rule.R1_1, situation).fresh();
    return c;
  }

  default ClaimOutcome.Claimed claimNew(RecordId id) {
    return claimNew(id, FP_A, timing().stableLease());
  }

  /** The owner's completion, which {@code rule} requires to succeed. */
  default void complete(RecordId id, FenceToken fence, StoredResponse response, Rule rule) {
    verify()
        .succeeds(
            rule,
            "the owner's complete of " + id + " with " + fence,
            () -> store().complete(id, fence, response, now()));
  }

  default Optional<RecordSnapshot> lookup(RecordId id) {
    return store().lookup(id);
  }

  /** The record, which must exist. */
  default RecordSnapshot present(RecordId id, Rule rule, String situation) {
    Optional<RecordSnapshot> s = lookup(id);
    if (s.isEmpty()) {
      throw verify()
          .violation(
              rule, situation + ": lookup(" + id + ") is empty, but the record should exist");
    }
    return s.get();
  }

  default void absent(RecordId id, Rule rule, String situation) {
    Optional<RecordSnapshot> s = lookup(id);
    verify()
        .check(
            s.isEmpty(),
            rule,
            () ->
                situation + ": lookup(" + id + ") should be empty, but is " + Describe.snapshot(s));
  }

  /** The record is as {@code before}: what "changes nothing" means. */
  default void unchanged(
      RecordId id, Optional<RecordSnapshot> before, Rule rule, String situation) {
    Optional<RecordSnapshot> after = lookup(id);
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

  /** A fresh claim, with a fence above {@code previous} (rule 3.1) when one was issued before. */
  default void fresh(
      ClaimOutcome outcome, @Nullable FenceToken previous, Rule rule, String situation) {
    ClaimOutcome.Claimed c = verify().claimed(outcome, rule, situation);
    verify().won(c, rule, situation + " (a fresh claim expected)").fresh();
    if (previous != null) {
      verify().won(c, Rule.R3_1, situation).fenceAbove(previous);
    }
  }

  /** A replay of {@code expected}, byte for byte (rule 5.1). */
  default void replays(ClaimOutcome outcome, StoredResponse expected, Rule rule, String situation) {
    ClaimOutcome.Completed c = verify().completed(outcome, rule, situation);
    verify().identical(c.response(), expected, Rule.R5_1, situation + ", the replayed response");
  }
}
