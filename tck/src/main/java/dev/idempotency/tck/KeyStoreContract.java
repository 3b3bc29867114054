package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.tck.internal.ConcurrencyGate;
import dev.idempotency.tck.internal.ConcurrentHistories;
import dev.idempotency.tck.internal.Describe;
import dev.idempotency.tck.internal.Knobs;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import dev.idempotency.tck.internal.SequentialHistories;
import dev.idempotency.tck.internal.TckClock;
import dev.idempotency.tck.internal.Timeline;
import dev.idempotency.tck.internal.Timing;
import dev.idempotency.tck.internal.Verifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link KeyStore} must pass: the numbered rules of the TCK's {@code SPEC.md}, as JUnit 5 tests.
 *
 * <p>A store's test module extends this class with one factory:
 *
 * <pre>{@code
 * class InMemoryKeyStoreContractTest extends KeyStoreContract {
 *   protected KeyStore newStore(TckContext context) {
 *     return new InMemoryKeyStore();
 *   }
 * }
 * }</pre>
 *
 * <p>Every test gets a fresh, empty store from {@link #newStore}, and, where it needs several application
 * instances over the same records, peers from {@link #newPeer}. Time is the TCK's: every call carries a
 * {@code now} from a controlled clock, which the tests move to hit lease, window and retention boundaries to the
 * millisecond; a store that declares {@link StoreCapability#SERVER_CLOCK} ignores that {@code now}, so for it the
 * same rules run with short real leases and real sleeps.
 *
 * <p>Test names carry the rule: {@code required_x_y_…} must pass, {@code optional_x_y_…} runs only when the store
 * declares the capability it needs (otherwise it is skipped with the reason), {@code stochastic_x_y_…} runs seeded
 * random histories, and {@code untested_x_y_…} marks a rule the TCK cannot check (always skipped, with the reason).
 * A failure message names the rule ("Rule 2.3 violated: …"), the seed, and what to check.
 *
 * <p>Knobs (system properties, or environment variables such as {@code IDEMPOTENCY_TCK_ROUNDS}):
 * {@code idempotency.tck.seed} (replay one seed), {@code idempotency.tck.rounds} (concurrency-gate rounds per
 * thread count, default 20), {@code idempotency.tck.histories} (histories per stochastic test, default 60),
 * {@code idempotency.tck.serverClockLeaseMillis} (the real lease for SERVER_CLOCK stores, default 1000). Tests
 * tagged {@code slow} run the long variants.
 *
 * <p>Every test has a deadline of 10 minutes (the long runs tagged {@code slow}: 60), far above what a
 * networked store needs at the default knobs, so a store that blocks fails the test instead of hanging the build;
 * see SPEC.md, "Deadlines".
 *
 * <p>Not thread-safe: JUnit creates one instance per test.
 *
 * <p>One file of about 1,500 lines: every SPEC section is a JUnit {@code @Nested} class here, so that an implementer
 * extends one class with one factory and gets every rule. The helpers at the top are the fixture the sections
 * share; moving each section into a file of its own (test interfaces over that fixture) keeps the single extension
 * point and is the seam along which it splits.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
public abstract class KeyStoreContract {
  private static final Fingerprint FP_A = Samples.fingerprint("POST /payments {\"amount\":10}");
  private static final Fingerprint FP_B = Samples.fingerprint("POST /payments {\"amount\":20}");
  private static final int PEERS = 2;

  private TckContext context;
  private KeyStore store;
  private List<KeyStore> instances;
  private Set<StoreCapability> capabilities;
  private TckClock clock;
  private Timing timing;
  private Verifier verify;

  /** For subclasses. */
  protected KeyStoreContract() {}

  /**
   * A fresh, empty store for one test. Register what must be closed afterwards with
   * {@link TckContext#onClose}.
   *
   * @param context the test the store is for
   * @return the store to test; never null
   * @throws Exception if the store cannot be created (the test then fails, not the rule)
   */
  protected abstract KeyStore newStore(TckContext context) throws Exception;

  /**
   * Another instance over the same records as {@code store}: for a shared store, one with its own connection pool
   * (or client), standing for another application instance. The concurrency rules spread their threads over the
   * store and two peers. The default returns {@code store} itself, which is right for an in-process store.
   *
   * @param store the store {@link #newStore} returned for this test
   * @param context the test
   * @return a store over the same records; may be {@code store}
   * @throws Exception if the peer cannot be created
   */
  protected KeyStore newPeer(KeyStore store, TckContext context) throws Exception {
    return store;
  }

  /**
   * The capabilities to test. The default is {@code store.capabilities()}; override only to test a store as if it
   * lacked a capability.
   *
   * @param store the store under test
   * @return the capabilities the contract assumes
   */
  protected Set<StoreCapability> capabilities(KeyStore store) {
    return store.capabilities();
  }

  /** Creates this test's store, clock and timing; called by JUnit before every test. */
  @BeforeEach
  protected final void setUpKeyStoreContract(TestInfo info) throws Exception {
    String name = getClass().getSimpleName() + "." + info.getTestClass().map(Class::getSimpleName).orElse("?") + "#"
        + info.getTestMethod().map(java.lang.reflect.Method::getName).orElse(info.getDisplayName());
    long seed = Knobs.seed().orElseGet(() -> new SplittableRandom().nextLong());
    context = new TckContext(name, seed);
    verify = new Verifier(name, seed);
    store = Objects.requireNonNull(newStore(context), "newStore(TckContext) returned null");
    capabilities = Objects.requireNonNull(capabilities(store), "capabilities(KeyStore) returned null");
    boolean serverClock = capabilities.contains(StoreCapability.SERVER_CLOCK);
    clock = serverClock ? TckClock.system() : TckClock.controlled(TckClock.CONTROLLED_START);
    timing = serverClock ? Timing.realTime(Knobs.serverClockLeaseMillis()) : Timing.controlled();
  }

  /** Closes what the factories registered; called by JUnit after every test. */
  @AfterEach
  protected final void tearDownKeyStoreContract() throws Exception {
    if (context != null) {
      context.close();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // helpers

  private static RecordId id(String key) {
    return Samples.id("tenant-1", key);
  }

  private Instant now() {
    return clock.instant();
  }

  private Timeline timeline() {
    return Timeline.start(clock, timing);
  }

  private ClaimOutcome claim(RecordId id, Fingerprint fp) {
    return claim(store, id, fp, timing.stableLease(), timing.stableWindow());
  }

  private ClaimOutcome claim(KeyStore s, RecordId id, Fingerprint fp, Duration lease, Duration window) {
    return s.claim(new ClaimRequest(id, fp, now(), lease, window));
  }

  private ClaimOutcome.Claimed claimNew(RecordId id, Fingerprint fp, Duration lease) {
    ClaimOutcome.Claimed c = verify.claimed(claim(store, id, fp, lease, timing.stableWindow()), Rule.R1_1,
        "the first claim of " + id);
    verify.check(!c.takeover() && c.resumeFrom().isEmpty(), Rule.R1_1,
        () -> "the first claim of " + id + " returned " + Describe.outcome(c) + ", expected takeover=false and no"
            + " resumeFrom");
    return c;
  }

  private ClaimOutcome.Claimed claimNew(RecordId id) {
    return claimNew(id, FP_A, timing.stableLease());
  }

  private void complete(RecordId id, FenceToken fence, StoredResponse response, Rule rule) {
    verify.succeeds(rule, "the owner's complete of " + id + " with " + fence,
        () -> store.complete(id, fence, response, now()));
  }

  private Optional<RecordSnapshot> lookup(RecordId id) {
    return store.lookup(id);
  }

  private RecordSnapshot present(RecordId id, Rule rule, String situation) {
    Optional<RecordSnapshot> s = lookup(id);
    if (s.isEmpty()) {
      throw verify.violation(rule, situation + ": lookup(" + id + ") is empty, but the record should exist");
    }
    return s.get();
  }

  private void absent(RecordId id, Rule rule, String situation) {
    Optional<RecordSnapshot> s = lookup(id);
    verify.check(s.isEmpty(), rule, () -> situation + ": lookup(" + id + ") should be empty, but is "
        + Describe.snapshot(s));
  }

  private void unchanged(RecordId id, Optional<RecordSnapshot> before, Rule rule, String situation) {
    Optional<RecordSnapshot> after = lookup(id);
    verify.check(after.equals(before), rule, () -> situation + " changed the record: before "
        + Describe.snapshot(before) + ", after " + Describe.snapshot(after));
  }

  private void fresh(ClaimOutcome outcome, FenceToken previous, Rule rule, String situation) {
    ClaimOutcome.Claimed c = verify.claimed(outcome, rule, situation);
    verify.check(!c.takeover() && c.resumeFrom().isEmpty(), rule, () -> situation + ": expected a fresh claim"
        + " (takeover=false, no resumeFrom), got " + Describe.outcome(c));
    verify.check(previous == null || c.fence().isNewerThan(previous), Rule.R3_1, () -> situation + ": the new"
        + " fence " + c.fence() + " is not greater than " + previous + ", issued before for this record");
  }

  private void replays(ClaimOutcome outcome, StoredResponse expected, Rule rule, String situation) {
    ClaimOutcome.Completed c = verify.completed(outcome, rule, situation);
    verify.check(Samples.identical(c.response(), expected), Rule.R5_1, () -> situation + ": replayed "
        + Describe.response(c.response()) + ", but the stored response is " + Describe.response(expected));
  }

  /** The store and its peers: [store, peer, peer]. */
  private List<KeyStore> instances() throws Exception {
    if (instances == null) {
      List<KeyStore> all = new ArrayList<>();
      all.add(store);
      for (int i = 0; i < PEERS; i++) {
        all.add(Objects.requireNonNull(newPeer(store, context), "newPeer(KeyStore, TckContext) returned null"));
      }
      instances = List.copyOf(all);
    }
    return instances;
  }

  /** The seeds of this test's histories: the replayed one, or {@code count} drawn from the test's seed. */
  private long[] historySeeds(int count) {
    if (Knobs.seed().isPresent()) {
      return new long[] {Knobs.seed().getAsLong()};
    }
    SplittableRandom rnd = new SplittableRandom(context.seed());
    long[] seeds = new long[count];
    for (int i = 0; i < count; i++) {
      seeds[i] = rnd.nextLong();
    }
    return seeds;
  }

  private boolean has(StoreCapability capability) {
    return capabilities.contains(capability);
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** Rules 1.x: what a claim returns and does, and what lookup shows. */
  @Nested
  @DisplayName("1. Claim outcomes")
  class ClaimRules {

    @Test
    @DisplayName("Rule 1.1: a claim of a record that does not exist wins it and leaves it IN_FLIGHT")
    void required_1_1_firstClaimWinsAnAbsentRecord() {
      RecordId id = id("k1");
      absent(id, Rule.R1_7, "before any claim");
      Instant t0 = now();
      ClaimOutcome.Claimed c = claimNew(id, FP_A, timing.stableLease());
      RecordSnapshot s = present(id, Rule.R1_1, "after a won claim");
      verify.check(s.state() == KeyState.IN_FLIGHT && s.fingerprint().equals(FP_A) && s.fence().equals(c.fence())
          && s.recoveryPoint().isEmpty() && s.response().isEmpty() && s.completedAt().isEmpty()
          && s.leaseExpiresAt().isPresent(), Rule.R1_1, () -> "after " + Describe.outcome(c) + " lookup shows "
          + Describe.snapshot(s) + ", expected IN_FLIGHT with the request's fingerprint, " + c.fence()
          + ", a lease and no recovery point");
      if (!timing.isRealTime()) {
        verify.check(s.leaseExpiresAt().get().equals(t0.plus(timing.stableLease())), Rule.R1_1,
            () -> "the lease of a claim at " + t0 + " for " + timing.stableLease() + " should expire at "
                + t0.plus(timing.stableLease()) + ", but lookup shows " + s.leaseExpiresAt().get());
      }
    }

    @Test
    @DisplayName("Rule 1.2: the same request while the lease is live is InFlight and changes nothing")
    void required_1_2_sameRequestWhileTheLeaseIsLiveIsInFlight() {
      RecordId id = id("k1");
      claimNew(id);
      Optional<RecordSnapshot> before = lookup(id);
      for (int i = 0; i < 3; i++) {
        verify.inFlight(claim(id, FP_A), Rule.R1_2, "claim #" + (i + 2) + " of " + id + " while its lease is live");
      }
      unchanged(id, before, Rule.R1_2, "an InFlight claim");
    }

    @Test
    @DisplayName("Rule 1.3: InFlight reports the lease's remaining time")
    void required_1_3_inFlightReportsTheRemainingLease() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      claimNew(id, FP_A, lease);
      if (timing.isRealTime()) {
        tl.justBefore(lease);
        ClaimOutcome.InFlight f = verify.inFlight(claim(store, id, FP_A, lease, timing.stableWindow()), Rule.R1_2,
            "a second claim while the lease is live");
        verify.check(!f.leaseRemaining().isZero() && f.leaseRemaining().compareTo(lease) <= 0, Rule.R1_3,
            () -> "InFlight right after a claim with lease " + lease + " reports " + f.leaseRemaining()
                + " remaining, expected more than 0 and at most " + lease);
      } else {
        clock.set(tl.start().plusMillis(12_345));
        ClaimOutcome.InFlight f = verify.inFlight(claim(store, id, FP_A, lease, timing.stableWindow()), Rule.R1_2,
            "a second claim 12.345 s into a " + lease + " lease");
        Duration expected = lease.minusMillis(12_345);
        verify.check(f.leaseRemaining().equals(expected), Rule.R1_3, () -> "12.345 s into a " + lease
            + " lease, InFlight reports " + f.leaseRemaining() + " remaining, expected " + expected);
      }
    }

    @Test
    @DisplayName("Rule 1.4: the same request after completion replays the stored response and changes nothing")
    void required_1_4_sameRequestAfterCompletionReplaysTheResponse() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      StoredResponse response = Samples.response("the first request");
      Instant completedAt = now();
      complete(id, c.fence(), response, Rule.R1_4);
      Optional<RecordSnapshot> before = lookup(id);
      for (int i = 0; i < 3; i++) {
        ClaimOutcome outcome = claim(id, FP_A);
        replays(outcome, response, Rule.R1_4, "a retry of the completed request on " + id);
        Instant replayedAt = ((ClaimOutcome.Completed) outcome).completedAt();
        Instant expected = timing.isRealTime() ? before.flatMap(RecordSnapshot::completedAt).orElseThrow()
            : completedAt;
        verify.check(replayedAt.equals(expected), Rule.R1_4, () -> "Completed.completedAt is " + replayedAt
            + ", but the record completed at " + expected);
      }
      unchanged(id, before, Rule.R1_4, "a replay");
    }

    @Test
    @DisplayName("Rule 1.5: another request on an IN_FLIGHT record is Mismatch and changes nothing")
    void required_1_5_otherRequestOnAnInFlightRecordIsMismatch() {
      RecordId id = id("k1");
      claimNew(id);
      Optional<RecordSnapshot> before = lookup(id);
      ClaimOutcome.Mismatch m = verify.mismatch(claim(id, FP_B), Rule.R1_5,
          "a claim with another fingerprint of the in-flight " + id);
      verify.check(m.existingState() == KeyState.IN_FLIGHT, Rule.R1_5, () -> "the mismatch reports "
          + m.existingState() + ", expected IN_FLIGHT");
      unchanged(id, before, Rule.R1_5, "a mismatched claim");
    }

    @Test
    @DisplayName("Rule 1.5: another request is Mismatch even after the lease expired, never a takeover")
    void required_1_5_otherRequestIsMismatchEvenAfterTheLeaseExpired() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
      tl.at(lease);
      Optional<RecordSnapshot> before = lookup(id);
      ClaimOutcome.Mismatch m = verify.mismatch(claim(store, id, FP_B, timing.stableLease(), timing.stableWindow()),
          Rule.R1_5, "a claim with another fingerprint of " + id + " after its lease expired");
      verify.check(m.existingState() == KeyState.IN_FLIGHT, Rule.R1_5, () -> "the mismatch reports "
          + m.existingState() + ", expected IN_FLIGHT");
      unchanged(id, before, Rule.R1_5, "a mismatched claim of an expired lease");
      ClaimOutcome.Claimed t = verify.claimed(claim(id, FP_A), Rule.R4_2, "the same request after the lease expired");
      verify.check(t.takeover() && t.fence().isNewerThan(c.fence()), Rule.R4_2, () -> "the same request after the"
          + " lease expired returned " + Describe.outcome(t) + ", expected a takeover with a fence > " + c.fence());
    }

    @Test
    @DisplayName("Rule 1.6: another request on a COMPLETE record is Mismatch, never the stored response")
    void required_1_6_otherRequestOnACompletedRecordIsMismatch() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      StoredResponse response = Samples.response("the first request");
      complete(id, c.fence(), response, Rule.R1_6);
      Optional<RecordSnapshot> before = lookup(id);
      ClaimOutcome.Mismatch m = verify.mismatch(claim(id, FP_B), Rule.R1_6,
          "a claim with another fingerprint of the completed " + id);
      verify.check(m.existingState() == KeyState.COMPLETE, Rule.R1_6, () -> "the mismatch reports "
          + m.existingState() + ", expected COMPLETE");
      unchanged(id, before, Rule.R1_6, "a mismatched claim");
      replays(claim(id, FP_A), response, Rule.R1_6, "the original request after a mismatch");
    }

    @Test
    @DisplayName("Rule 1.7: lookup returns the raw record, also past its lease or window, and changes nothing")
    void required_1_7_lookupReturnsTheRawRecord() {
      RecordId open = id("open");
      RecordId done = id("done");
      absent(open, Rule.R1_7, "a record never claimed");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed co = claimNew(open, FP_A, lease);
      RecoveryPoint point = Samples.point("charged");
      Instant t0 = tl.start();
      verify.succeeds(Rule.R1_7, "the owner's checkpoint", () -> store.checkpoint(open, co.fence(), point, t0, lease));
      ClaimOutcome.Claimed cd = claimNew(done, FP_B, lease);
      StoredResponse response = Samples.response("done");
      complete(done, cd.fence(), response, Rule.R1_7);
      RecordSnapshot o1 = present(open, Rule.R1_7, "an in-flight record");
      RecordSnapshot d1 = present(done, Rule.R1_7, "a completed record");
      verify.check(o1.state() == KeyState.IN_FLIGHT && o1.fence().equals(co.fence()) && o1.fingerprint().equals(FP_A)
          && o1.recoveryPoint().equals(Optional.of(point)) && o1.leaseExpiresAt().isPresent(), Rule.R1_7,
          () -> "lookup of the in-flight record shows " + Describe.snapshot(o1) + ", expected IN_FLIGHT, "
              + co.fence() + ", its fingerprint and recovery point " + point.name());
      verify.check(d1.state() == KeyState.COMPLETE && d1.fence().equals(cd.fence()) && d1.fingerprint().equals(FP_B)
          && d1.response().isPresent() && Samples.identical(d1.response().get(), response)
          && d1.completedAt().isPresent(), Rule.R1_7, () -> "lookup of the completed record shows "
          + Describe.snapshot(d1) + ", expected COMPLETE with " + cd.fence() + " and " + Describe.response(response));
      if (!timing.isRealTime()) {
        verify.check(o1.leaseExpiresAt().get().equals(t0.plus(lease)) && d1.completedAt().get().equals(t0),
            Rule.R4_7, () -> "lookup shows lease expiry " + o1.leaseExpiresAt().get() + " and completion time "
                + d1.completedAt().get() + ", expected " + t0.plus(lease) + " and " + t0);
      }
      verify.check(lookup(open).equals(Optional.of(o1)) && lookup(done).equals(Optional.of(d1)), Rule.R1_7,
          () -> "two lookups in a row differ");
      tl.at(timing.window().compareTo(lease) > 0 ? timing.window() : lease);
      verify.check(lookup(open).equals(Optional.of(o1)), Rule.R1_7, () -> "past its lease, lookup of the in-flight"
          + " record shows " + Describe.snapshot(lookup(open)) + ", expected it unchanged: " + Describe.snapshot(o1));
      verify.check(lookup(done).equals(Optional.of(d1)), Rule.R1_7, () -> "past its window, lookup of the completed"
          + " record shows " + Describe.snapshot(lookup(done)) + ", expected it unchanged: " + Describe.snapshot(d1));
    }
  }

  /** Rules 2.x: atomicity, peers, the concurrency gate, and the generated histories. */
  @Nested
  @DisplayName("2. Atomicity and concurrency")
  class ConcurrencyRules {

    @Test
    @DisplayName("Rule 2.2: instances over the same records see each other's writes at once")
    void required_2_2_peersSeeEachOthersWrites() throws Exception {
      List<KeyStore> all = instances();
      RecordId a = id("a");
      ClaimOutcome.Claimed c = verify.claimed(claim(all.get(0), a, FP_A, timing.stableLease(), timing.stableWindow()),
          Rule.R1_1, "the first claim of " + a);
      for (int i = 1; i < all.size(); i++) {
        verify.inFlight(claim(all.get(i), a, FP_A, timing.stableLease(), timing.stableWindow()), Rule.R2_2,
            "a claim through instance " + i + " right after instance 0 won " + a);
      }
      RecordSnapshot seen = all.get(all.size() - 1).lookup(a).orElseThrow(() -> verify.violation(Rule.R2_2,
          "lookup through the last instance does not see the record instance 0 claimed"));
      verify.check(seen.fence().equals(c.fence()), Rule.R2_2, () -> "lookup through another instance shows "
          + seen.fence() + ", expected " + c.fence());
      StoredResponse response = Samples.response("peer completion");
      verify.succeeds(Rule.R2_2, "complete through instance 1 with the owner's fence",
          () -> all.get(1).complete(a, c.fence(), response, now()));
      for (int i = 0; i < all.size(); i++) {
        replays(claim(all.get(i), a, FP_A, timing.stableLease(), timing.stableWindow()), response, Rule.R2_2,
            "a claim through instance " + i + " after instance 1 completed " + a);
      }
      RecordId b = id("b");
      ClaimOutcome.Claimed cb = verify.claimed(claim(all.get(2), b, FP_A, timing.stableLease(),
          timing.stableWindow()), Rule.R1_1, "the first claim of " + b);
      verify.succeeds(Rule.R2_2, "release through instance 0", () -> all.get(0).release(b, cb.fence(), now()));
      fresh(claim(all.get(1), b, FP_B, timing.stableLease(), timing.stableWindow()), cb.fence(), Rule.R2_2,
          "a claim through instance 1 after instance 0 released " + b);
    }

    @Test
    @DisplayName("Rule 2.3: of N concurrent claims of one record (N = 2..64), exactly one wins")
    void required_2_3_concurrentClaimsYieldExactlyOneWinner() throws Exception {
      try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock, timing, verify, 64)) {
        gate.claimRaces(ConcurrencyGate.threadCounts(), Knobs.rounds(), true);
      }
    }

    @Test
    @DisplayName("Rule 2.4: losers see InFlight or the winner's byte-identical response, and then the replay")
    void required_2_4_losersSeeInFlightOrTheWinnersResponse() throws Exception {
      try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock, timing, verify, 64)) {
        gate.claimRaces(new int[] {4, 16, 64}, Math.max(1, Knobs.rounds() / 2), false);
      }
    }

    @Test
    @DisplayName("Rule 2.5: of concurrent takeovers of one expired lease, exactly one wins")
    void required_2_5_concurrentTakeoversYieldExactlyOneWinner() throws Exception {
      try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock, timing, verify, 32)) {
        // with real leases each round waits one lease out: one round per thread count, so N = 8 and 32 race too
        gate.takeoverRaces(new int[] {2, 8, 32}, timing.isRealTime() ? 3 : Math.max(3, Knobs.rounds() / 2));
      }
    }

    @Test
    @Tag("slow")
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    @DisplayName("Rule 2.3 (long run): the concurrency gate with ten times the rounds")
    void required_2_3_concurrencyGateLongRun() throws Exception {
      try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock, timing, verify, 64)) {
        gate.claimRaces(ConcurrencyGate.threadCounts(), Knobs.rounds() * 10, true);
      }
    }
  }

  /** Rules 2.1 and 2.6: seeded random histories checked against the model and the invariants. */
  @Nested
  @DisplayName("2. Generated histories")
  class HistoryRules {

    @Test
    @DisplayName("Rule 2.1: sequential random histories follow the reference model, call by call")
    void stochastic_2_1_sequentialHistoriesFollowTheModel() throws Exception {
      SequentialHistories runner = new SequentialHistories(instances(), clock, timing, verify);
      for (long seed : historySeeds(Knobs.histories())) {
        runner.run(seed, 40);
      }
    }

    @Test
    @DisplayName("Rule 2.1: small concurrent histories are linearizable against the reference model")
    void stochastic_2_1_smallConcurrentHistoriesAreLinearizable() throws Exception {
      ConcurrentHistories runner = new ConcurrentHistories(instances(), clock, timing, verify);
      for (long seed : historySeeds(Knobs.histories())) {
        runner.run(seed, true);
      }
    }

    @Test
    @DisplayName("Rule 2.6: concurrent histories keep the fencing and one-completion-per-generation invariants")
    void stochastic_2_6_concurrentHistoriesKeepTheInvariants() throws Exception {
      ConcurrentHistories runner = new ConcurrentHistories(instances(), clock, timing, verify);
      for (long seed : historySeeds(Math.max(1, Knobs.histories() / 2))) {
        runner.run(seed, false);
      }
    }

    @Test
    @Tag("slow")
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    @DisplayName("Rule 2.1 (long run): twenty times the sequential histories, five times as long")
    void stochastic_2_1_sequentialHistoriesLongRun() throws Exception {
      SequentialHistories runner = new SequentialHistories(instances(), clock, timing, verify);
      for (long seed : historySeeds(Knobs.histories() * 20)) {
        runner.run(seed, 200);
      }
    }

    @Test
    @Tag("slow")
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    @DisplayName("Rule 2.6 (long run): twenty times the concurrent histories, half of them also checked for 2.1")
    void stochastic_2_6_concurrentHistoriesLongRun() throws Exception {
      ConcurrentHistories runner = new ConcurrentHistories(instances(), clock, timing, verify);
      for (long seed : historySeeds(Knobs.histories() * 20)) {
        runner.run(seed, (seed & 1) == 0);
      }
    }
  }

  /** Rules 3.x: fence tokens and fenced writes. */
  @Nested
  @DisplayName("3. Fencing")
  class FencingRules {

    @Test
    @DisplayName("Rule 3.1: a takeover's fence is greater than the previous owner's")
    void required_3_1_fenceGrowsOnTakeover() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed first = claimNew(id, FP_A, lease);
      tl.at(lease);
      ClaimOutcome.Claimed second = verify.claimed(claim(id, FP_A), Rule.R4_1, "a claim after the lease expired");
      verify.check(second.fence().isNewerThan(first.fence()), Rule.R3_1, () -> "the takeover's fence "
          + second.fence() + " is not greater than the first owner's " + first.fence());
      RecordSnapshot s = present(id, Rule.R1_7, "after the takeover");
      verify.check(s.fence().equals(second.fence()), Rule.R1_7, () -> "after the takeover lookup shows "
          + s.fence() + ", expected " + second.fence());
    }

    @Test
    @DisplayName("Rule 3.1: fences keep growing across releases")
    void required_3_1_fenceGrowsAcrossRelease() {
      RecordId id = id("k1");
      FenceToken previous = null;
      for (int i = 0; i < 4; i++) {
        Fingerprint fp = i % 2 == 0 ? FP_A : FP_B;
        ClaimOutcome outcome = claim(id, fp);
        fresh(outcome, previous, Rule.R5_3, "claim #" + (i + 1) + " of " + id + (i == 0 ? "" : " after a release"));
        FenceToken fence = ((ClaimOutcome.Claimed) outcome).fence();
        verify.succeeds(Rule.R5_3, "the owner's release with " + fence, () -> store.release(id, fence, now()));
        previous = fence;
      }
    }

    @Test
    @DisplayName("Rule 3.1: fences keep growing when a completed record's window passes")
    void required_3_1_fenceGrowsAcrossWindowExpiry() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed first = claimNew(id);
      Timeline tl = timeline();
      complete(id, first.fence(), Samples.response("first"), Rule.R1_4);
      tl.at(timing.window());
      fresh(claim(store, id, FP_A, timing.stableLease(), timing.window()), first.fence(), Rule.R4_3,
          "a claim after the window of the completed " + id + " passed");
    }

    @Test
    @DisplayName("Rule 3.1: fences keep growing after the record was purged")
    void required_3_1_fenceGrowsAcrossPurge() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed first = claimNew(id, FP_A, lease);
      verify.succeeds(Rule.R4_6, "the owner's checkpoint", () -> store.checkpoint(id, first.fence(),
          Samples.point("p1"), tl.start(), lease));
      tl.at(lease.plus(timing.retention()));
      int n = store.deleteExpired(now(), timing.retention(), 10);
      verify.check(n == 1, Rule.R7_2, () -> "deleteExpired after an abandoned lease expired retention ago returned "
          + n + ", expected 1");
      absent(id, Rule.R7_4, "after the purge");
      fresh(claim(id, FP_A), first.fence(), Rule.R7_4, "a claim of the purged " + id);
    }

    @Test
    @DisplayName("Rule 3.1: in concurrent claim/release cycles each fence exceeds every one released before")
    void required_3_1_fenceGrowsAcrossConcurrentReleases() throws Exception {
      try (ConcurrencyGate gate = new ConcurrencyGate(instances(), clock, timing, verify, 8)) {
        gate.claimReleaseCycles(8, Knobs.rounds() * 10);
      }
    }

    @Test
    @DisplayName("Rule 3.2: after a takeover the old owner's writes are refused and change nothing")
    void required_3_2_staleOwnerCannotWriteAfterATakeover() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed old = claimNew(id, FP_A, lease);
      RecoveryPoint p1 = Samples.point("p1");
      verify.succeeds(Rule.R4_6, "the owner's checkpoint", () -> store.checkpoint(id, old.fence(), p1, tl.start(),
          lease));
      tl.at(lease);
      ClaimOutcome.Claimed current = verify.claimed(claim(id, FP_A), Rule.R4_1, "a claim after the lease expired");
      Optional<RecordSnapshot> before = lookup(id);
      FenceToken stale = old.fence();
      verify.leaseLost(Rule.R3_2, "the old owner's heartbeat with " + stale,
          () -> store.heartbeat(id, stale, now(), timing.stableLease()));
      verify.leaseLost(Rule.R3_2, "the old owner's checkpoint with " + stale,
          () -> store.checkpoint(id, stale, Samples.point("stale"), now(), timing.stableLease()));
      verify.leaseLost(Rule.R3_2, "the old owner's complete with " + stale,
          () -> store.complete(id, stale, Samples.response("stale owner"), now()));
      verify.leaseLost(Rule.R3_2, "the old owner's release with " + stale, () -> store.release(id, stale, now()));
      unchanged(id, before, Rule.R3_2, "the old owner's refused writes");
      verify.inFlight(claim(id, FP_A), Rule.R3_2, "a claim after the old owner's refused writes (the new owner"
          + " still holds the record)");
      StoredResponse response = Samples.response("new owner");
      verify.succeeds(Rule.R3_2, "the new owner's complete with " + current.fence(),
          () -> store.complete(id, current.fence(), response, now()));
      replays(claim(id, FP_A), response, Rule.R3_2, "a claim after the new owner completed");
    }

    @Test
    @DisplayName("Rule 3.3: an owner whose lease expired but was not taken over can still write")
    void required_3_3_ownerWhoseLeaseExpiredCanWriteUntilTakenOver() {
      RecordId beat = id("beat");
      RecordId done = id("done");
      RecordId gone = id("gone");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed cb = claimNew(beat, FP_A, lease);
      ClaimOutcome.Claimed cd = claimNew(done, FP_A, lease);
      ClaimOutcome.Claimed cg = claimNew(gone, FP_A, lease);
      tl.at(lease);
      verify.succeeds(Rule.R3_3, "heartbeat with the current fence after the lease expired",
          () -> store.heartbeat(beat, cb.fence(), now(), timing.stableLease()));
      verify.succeeds(Rule.R3_3, "checkpoint with the current fence after the lease expired",
          () -> store.checkpoint(beat, cb.fence(), Samples.point("late"), now(), timing.stableLease()));
      verify.inFlight(claim(beat, FP_A), Rule.R4_5, "a claim after the late heartbeat renewed the lease");
      StoredResponse response = Samples.response("late");
      verify.succeeds(Rule.R3_3, "complete with the current fence after the lease expired",
          () -> store.complete(done, cd.fence(), response, now()));
      replays(claim(done, FP_A), response, Rule.R3_3, "a claim after the late completion");
      verify.succeeds(Rule.R3_3, "release with the current fence after the lease expired",
          () -> store.release(gone, cg.fence(), now()));
      absent(gone, Rule.R5_3, "after the late release");
    }

    @Test
    @DisplayName("Rule 3.4: writes to an absent record or with a fence never issued are refused and change nothing")
    void required_3_4_writesWithoutTheCurrentFenceChangeNothing() {
      RecordId never = id("never");
      FenceToken one = FenceToken.of(1);
      writesRefused(never, one, "a record never claimed");
      absent(never, Rule.R3_4, "after writes to a record never claimed");

      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      Optional<RecordSnapshot> before = lookup(id);
      FenceToken above = FenceToken.of(c.fence().value() + 1);
      writesRefused(id, above, "the in-flight record, whose fence is " + c.fence());
      if (c.fence().value() > 1) {
        writesRefused(id, FenceToken.of(c.fence().value() - 1), "the in-flight record, whose fence is " + c.fence());
      }
      unchanged(id, before, Rule.R3_4, "writes with a fence never issued for the record");

      verify.succeeds(Rule.R5_3, "the owner's release", () -> store.release(id, c.fence(), now()));
      writesRefused(id, c.fence(), "the released record");
      absent(id, Rule.R3_4, "after writes to a released record");
    }

    @Test
    @DisplayName("Rule 3.5: heartbeatAll renews the current owners and reports exactly the refused ones")
    void required_3_5_heartbeatAllRenewsOwnersAndReportsTheRefused() {
      Duration lease = timing.lease();
      Timeline tl = timeline();
      RecordId live = id("live");
      RecordId taken = id("taken");
      RecordId done = id("done");
      RecordId released = id("released");
      RecordId never = id("never");
      ClaimOutcome.Claimed cl = claimNew(live, FP_A, lease);
      ClaimOutcome.Claimed ct = claimNew(taken, FP_A, lease);
      ClaimOutcome.Claimed cd = claimNew(done, FP_A, lease);
      ClaimOutcome.Claimed cr = claimNew(released, FP_A, lease);
      complete(done, cd.fence(), Samples.response("done"), Rule.R1_4);
      verify.succeeds(Rule.R5_3, "the owner's release", () -> store.release(released, cr.fence(), now()));
      tl.at(lease.dividedBy(2));
      Map<RecordId, FenceToken> leases = new HashMap<>();
      leases.put(live, cl.fence());
      leases.put(done, cd.fence());
      leases.put(released, cr.fence());
      leases.put(never, FenceToken.of(1));
      verify.check(store.heartbeatAll(Map.of(), now(), lease).isEmpty(), Rule.R3_5,
          () -> "heartbeatAll of no leases returned records");
      // the first owner of "taken" loses it: its lease is left to expire and another claim takes it over
      Map<RecordId, FenceToken> liveOnly = Map.of(live, cl.fence());
      Set<RecordId> none = store.heartbeatAll(liveOnly, now(), lease);
      verify.check(none.isEmpty(), Rule.R3_5, () -> "heartbeatAll of the one live owner refused " + none);
      Timeline beat = timeline();
      tl.at(lease);
      verify.claimed(claim(taken, FP_A), Rule.R4_2, "a claim of " + taken + " after its lease expired");
      leases.put(taken, ct.fence());
      Map<RecordId, Optional<RecordSnapshot>> before = new HashMap<>();
      for (RecordId r : List.of(taken, done, released, never)) {
        before.put(r, lookup(r));
      }
      Timeline again = timeline();
      Set<RecordId> refused = store.heartbeatAll(leases, again.start(), lease);
      verify.check(refused.equals(Set.of(taken, done, released, never)), Rule.R3_5,
          () -> "heartbeatAll of a live owner, a stale one, a completed, a released and a never-claimed record"
              + " refused " + refused + ", expected all but " + live);
      before.forEach((r, snapshot) -> unchanged(r, snapshot, Rule.R3_5, "a refused entry of heartbeatAll"));
      beat.at(lease);
      verify.inFlight(claim(live, FP_A), Rule.R3_5, "a claim after the lease of the first renewal ended, before"
          + " the second renewal's");
      again.at(lease);
      ClaimOutcome.Claimed t = verify.claimed(claim(live, FP_A), Rule.R3_5, "a claim once the renewed lease ended");
      verify.check(t.takeover(), Rule.R4_2, () -> "expected a takeover, got " + Describe.outcome(t));
    }

    @Test
    @DisplayName("Rule 3.6: takeovers keep the request's generation; a new request begins its own")
    void required_3_6_takeoversKeepTheGenerationNewRequestsBeginTheirOwn() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed first = claimNew(id, FP_A, lease);
      verify.check(first.generation().equals(first.fence()), Rule.R3_6,
          () -> "a fresh claim's generation is " + first.generation() + ", expected its fence " + first.fence());
      tl.at(lease);
      ClaimOutcome.Claimed second = verify.claimed(claim(store, id, FP_A, lease, timing.window()), Rule.R4_2,
          "a claim after the lease expired");
      Timeline tl2 = timeline();
      tl2.at(lease);
      ClaimOutcome.Claimed third = verify.claimed(claim(id, FP_A), Rule.R4_2, "a claim after the second lease"
          + " expired");
      for (ClaimOutcome.Claimed t : List.of(second, third)) {
        verify.check(t.takeover() && t.generation().equals(first.fence()), Rule.R3_6, () -> "a takeover returned "
            + Describe.outcome(t) + " with generation " + t.generation() + ", expected the first claim's fence "
            + first.fence());
      }
      verify.succeeds(Rule.R5_3, "the owner's release", () -> store.release(id, third.fence(), now()));
      ClaimOutcome.Claimed again = verify.claimed(claim(id, FP_A), Rule.R5_3, "a claim after the release");
      verify.check(!again.takeover() && again.generation().equals(again.fence()), Rule.R3_6, () -> "a claim after"
          + " a release has generation " + again.generation() + ", expected its own fence " + again.fence());
    }

    private void writesRefused(RecordId id, FenceToken fence, String what) {
      verify.leaseLost(Rule.R3_4, "heartbeat with " + fence + " on " + what,
          () -> store.heartbeat(id, fence, now(), timing.stableLease()));
      verify.leaseLost(Rule.R3_4, "checkpoint with " + fence + " on " + what,
          () -> store.checkpoint(id, fence, Samples.point("x"), now(), timing.stableLease()));
      verify.leaseLost(Rule.R3_4, "complete with " + fence + " on " + what,
          () -> store.complete(id, fence, Samples.response("x"), now()));
      verify.leaseLost(Rule.R3_4, "release with " + fence + " on " + what, () -> store.release(id, fence, now()));
    }
  }

  /** Rules 4.x: leases, takeovers, the replay window and time precision. */
  @Nested
  @DisplayName("4. Time: leases and the replay window")
  class TimeRules {

    @Test
    @DisplayName("Rule 4.1: a lease is live before its end and expired from its end on")
    void required_4_1_leaseExpiresExactlyAtItsEnd() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline tl = timeline();
      ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
      tl.justBefore(lease);
      verify.inFlight(claim(id, FP_A), Rule.R4_1, "a claim just before the lease ends (lease " + lease + ")");
      tl.at(lease);
      ClaimOutcome.Claimed t = verify.claimed(claim(id, FP_A), Rule.R4_1, "a claim at the instant the lease ends"
          + (timing.isRealTime() ? " (plus " + timing.margin() + ")" : ""));
      verify.check(t.takeover() && t.fence().isNewerThan(c.fence()), Rule.R4_2, () -> "the claim after the lease"
          + " ended returned " + Describe.outcome(t) + ", expected a takeover with a fence > " + c.fence());
    }

    @Test
    @DisplayName("Rule 4.2: a takeover resumes from the last recovery point, with a larger fence")
    void required_4_2_takeoverResumesFromTheLastRecoveryPoint() {
      RecordId withPoint = id("with-point");
      RecordId withoutPoint = id("without-point");
      Duration lease = timing.lease();
      ClaimOutcome.Claimed c = claimNew(withPoint, FP_A, lease);
      RecoveryPoint p1 = Samples.point("reserved");
      RecoveryPoint p2 = Samples.point("charged");
      verify.succeeds(Rule.R4_6, "the owner's first checkpoint", () -> store.checkpoint(withPoint, c.fence(), p1,
          now(), lease));
      Timeline tl = timeline();
      verify.succeeds(Rule.R4_6, "the owner's second checkpoint", () -> store.checkpoint(withPoint, c.fence(), p2,
          tl.start(), lease));
      ClaimOutcome.Claimed plain = claimNew(withoutPoint, FP_A, lease);
      tl.at(lease);
      Instant takeoverAt = now();
      ClaimOutcome.Claimed t = verify.claimed(claim(withPoint, FP_A), Rule.R4_1, "a claim after the lease expired");
      verify.check(t.takeover() && t.resumeFrom().equals(Optional.of(p2)), Rule.R4_2, () -> "the takeover returned "
          + Describe.outcome(t) + ", expected takeover=true and resumeFrom=" + p2.name());
      verify.check(t.fence().isNewerThan(c.fence()), Rule.R3_1, () -> "the takeover's fence " + t.fence()
          + " is not greater than " + c.fence());
      RecordSnapshot s = present(withPoint, Rule.R4_2, "after the takeover");
      verify.check(s.state() == KeyState.IN_FLIGHT && s.fence().equals(t.fence()) && s.fingerprint().equals(FP_A)
          && s.recoveryPoint().equals(Optional.of(p2)), Rule.R4_2, () -> "after the takeover lookup shows "
          + Describe.snapshot(s) + ", expected IN_FLIGHT with " + t.fence() + ", the same fingerprint and " + p2.name());
      if (!timing.isRealTime()) {
        verify.check(s.leaseExpiresAt().equals(Optional.of(takeoverAt.plus(timing.stableLease()))), Rule.R4_2,
            () -> "the takeover at " + takeoverAt + " should hold a lease until "
                + takeoverAt.plus(timing.stableLease()) + ", but lookup shows " + s.leaseExpiresAt());
      }
      ClaimOutcome.Claimed tp = verify.claimed(claim(withoutPoint, FP_A), Rule.R4_1,
          "a claim after the lease (without a recovery point) expired");
      verify.check(tp.takeover() && tp.resumeFrom().isEmpty() && tp.fence().isNewerThan(plain.fence()), Rule.R4_2,
          () -> "the takeover of a record without a recovery point returned " + Describe.outcome(tp)
              + ", expected takeover=true, no resumeFrom and a fence > " + plain.fence());
    }

    @Test
    @DisplayName("Rule 4.3: past the replay window a completed record counts as absent, whatever the fingerprint")
    void required_4_3_completedRecordCountsAsAbsentOnceTheWindowPassed() {
      RecordId other = id("other-request");
      RecordId same = id("same-request");
      Duration window = timing.window();
      ClaimOutcome.Claimed co = claimNew(other);
      ClaimOutcome.Claimed cs = claimNew(same);
      StoredResponse ro = Samples.response("other");
      StoredResponse rs = Samples.response("same");
      Timeline tl = timeline();
      complete(other, co.fence(), ro, Rule.R4_3);
      complete(same, cs.fence(), rs, Rule.R4_3);
      tl.justBefore(window);
      replays(claim(store, same, FP_A, timing.stableLease(), window), rs, Rule.R4_3,
          "a retry just before the window (" + window + ") passes");
      verify.mismatch(claim(store, other, FP_B, timing.stableLease(), window), Rule.R4_3,
          "another request just before the window passes");
      tl.at(window);
      fresh(claim(store, other, FP_B, timing.stableLease(), window), co.fence(), Rule.R4_3,
          "another request with the same key once the window passed");
      fresh(claim(store, same, FP_A, timing.stableLease(), window), cs.fence(), Rule.R4_3,
          "the same request once the window passed");
      RecordSnapshot s = present(other, Rule.R4_3, "after the key was reused");
      verify.check(s.state() == KeyState.IN_FLIGHT && s.fingerprint().equals(FP_B) && s.response().isEmpty(),
          Rule.R4_3, () -> "after the key was reused past the window lookup shows " + Describe.snapshot(s)
              + ", expected IN_FLIGHT with the new request's fingerprint and no response");
    }

    @Test
    @DisplayName("Rule 4.4: the replay window is the one of the claim that asks")
    void required_4_4_windowIsTheOneOfTheAskingClaim() {
      RecordId id = id("k1");
      Duration shorter = timing.window();
      Duration longer = timing.window().multipliedBy(2);
      ClaimOutcome.Claimed c = claimNew(id);
      StoredResponse response = Samples.response("first");
      Timeline tl = timeline();
      complete(id, c.fence(), response, Rule.R4_4);
      tl.at(shorter);
      replays(claim(store, id, FP_A, timing.stableLease(), longer), response, Rule.R4_4,
          "a claim with a window of " + longer + ", " + shorter + " after completion");
      fresh(claim(store, id, FP_A, timing.stableLease(), shorter), c.fence(), Rule.R4_4,
          "a claim with a window of " + shorter + ", " + shorter + " after completion");
    }

    @Test
    @DisplayName("Rule 4.5: heartbeat extends the lease to now + lease")
    void required_4_5_heartbeatExtendsTheLease() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline claimed = timeline();
      ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
      claimed.at(lease.dividedBy(2));
      Timeline beat = timeline();
      verify.succeeds(Rule.R4_5, "the owner's heartbeat", () -> store.heartbeat(id, c.fence(), beat.start(), lease));
      if (!timing.isRealTime()) {
        RecordSnapshot s = present(id, Rule.R4_5, "after a heartbeat");
        verify.check(s.leaseExpiresAt().equals(Optional.of(beat.start().plus(lease))), Rule.R4_5,
            () -> "after a heartbeat at " + beat.start() + " for " + lease + " lookup shows lease expiry "
                + s.leaseExpiresAt() + ", expected " + beat.start().plus(lease));
      }
      claimed.at(lease);
      verify.inFlight(claim(id, FP_A), Rule.R4_5, "a claim when the original lease ended, before the heartbeat's");
      beat.justBefore(lease);
      verify.inFlight(claim(id, FP_A), Rule.R4_5, "a claim just before the heartbeat's lease ends");
      beat.at(lease);
      ClaimOutcome.Claimed t = verify.claimed(claim(id, FP_A), Rule.R4_5, "a claim once the heartbeat's lease ended");
      verify.check(t.takeover(), Rule.R4_2, () -> "expected a takeover, got " + Describe.outcome(t));
    }

    @Test
    @DisplayName("Rule 4.6: checkpoint replaces the recovery point and extends the lease")
    void required_4_6_checkpointRecordsThePointAndRenewsTheLease() {
      RecordId id = id("k1");
      Duration lease = timing.lease();
      Timeline claimed = timeline();
      ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
      RecoveryPoint p1 = Samples.point("p1");
      RecoveryPoint p2 = Samples.point("p2");
      verify.succeeds(Rule.R4_6, "the owner's first checkpoint", () -> store.checkpoint(id, c.fence(), p1,
          claimed.start(), lease));
      verify.check(present(id, Rule.R4_6, "after a checkpoint").recoveryPoint().equals(Optional.of(p1)), Rule.R4_6,
          () -> "after a checkpoint to p1 lookup shows " + Describe.snapshot(lookup(id)));
      claimed.at(lease.dividedBy(2));
      Timeline point = timeline();
      verify.succeeds(Rule.R4_6, "the owner's second checkpoint", () -> store.checkpoint(id, c.fence(), p2,
          point.start(), lease));
      RecordSnapshot s = present(id, Rule.R4_6, "after a second checkpoint");
      verify.check(s.recoveryPoint().equals(Optional.of(p2)), Rule.R4_6, () -> "after a checkpoint to p2 lookup"
          + " shows " + Describe.snapshot(s) + ", expected recovery point p2");
      if (!timing.isRealTime()) {
        verify.check(s.leaseExpiresAt().equals(Optional.of(point.start().plus(lease))), Rule.R4_6,
            () -> "after a checkpoint at " + point.start() + " for " + lease + " lookup shows lease expiry "
                + s.leaseExpiresAt() + ", expected " + point.start().plus(lease));
      }
      claimed.at(lease);
      verify.inFlight(claim(id, FP_A), Rule.R4_6, "a claim when the original lease ended, before the checkpoint's");
      point.at(lease);
      ClaimOutcome.Claimed t = verify.claimed(claim(id, FP_A), Rule.R4_6, "a claim once the checkpoint's lease"
          + " ended");
      verify.check(t.takeover() && t.resumeFrom().equals(Optional.of(p2)), Rule.R4_2, () -> "expected a takeover"
          + " resuming from p2, got " + Describe.outcome(t));
    }

    @Test
    @DisplayName("Rule 4.7: lease expiries and completion times are kept to the millisecond")
    void required_4_7_timesAreKeptToTheMillisecond() {
      RecordId id = id("k1");
      if (!timing.isRealTime()) {
        clock.set(clock.instant().plusMillis(123));
      }
      Duration lease = Duration.ofMillis(timing.stableLease().toMillis() + 7);
      Instant t0 = now();
      ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
      RecordSnapshot s = present(id, Rule.R4_7, "after a claim");
      if (!timing.isRealTime()) {
        verify.check(s.leaseExpiresAt().equals(Optional.of(t0.plus(lease))), Rule.R4_7, () -> "a claim at " + t0
            + " for " + lease + " shows lease expiry " + s.leaseExpiresAt() + ", expected " + t0.plus(lease));
        clock.advance(Duration.ofMillis(1_234));
      }
      Instant t1 = now();
      Duration lease2 = Duration.ofMillis(10_001);
      verify.succeeds(Rule.R4_5, "the owner's heartbeat", () -> store.heartbeat(id, c.fence(), t1, lease2));
      RecordSnapshot s1 = present(id, Rule.R4_7, "after a heartbeat");
      if (!timing.isRealTime()) {
        verify.check(s1.leaseExpiresAt().equals(Optional.of(t1.plus(lease2))), Rule.R4_7, () -> "a heartbeat at "
            + t1 + " for " + lease2 + " shows lease expiry " + s1.leaseExpiresAt() + ", expected " + t1.plus(lease2));
        clock.advance(Duration.ofMillis(2_345));
      }
      Instant t2 = now();
      complete(id, c.fence(), Samples.response("timed"), Rule.R4_7);
      RecordSnapshot s2 = present(id, Rule.R4_7, "after completion");
      ClaimOutcome.Completed replay = verify.completed(claim(id, FP_A), Rule.R1_4, "a retry after completion");
      Instant expected = timing.isRealTime() ? s2.completedAt().orElseThrow() : t2;
      verify.check(s2.completedAt().equals(Optional.of(expected)) && replay.completedAt().equals(expected),
          Rule.R4_7, () -> "a completion at " + t2 + " shows completedAt " + s2.completedAt() + " in lookup and "
              + replay.completedAt() + " in the replay, expected " + expected + " in both");
    }
  }

  /** Rules 5.x: what completion stores, and release. */
  @Nested
  @DisplayName("5. Completion and release")
  class CompletionRules {

    @Test
    @DisplayName("Rule 5.1: a completed response is replayed byte for byte")
    void required_5_1_replayIsByteForByte() throws Exception {
      List<StoredResponse> responses = new ArrayList<>();
      Map<String, List<String>> headers = new LinkedHashMap<>();
      headers.put("X-Zeta", List.of("last-letter-first"));
      headers.put("Content-Type", List.of("application/json; charset=utf-8"));
      headers.put("x-MiXeD-case", List.of("second", "first", "second"));
      headers.put("Location", List.of("/orders/42?x=a%20b&y=\"q\""));
      headers.put("X-Empty", List.of(""));
      headers.put("X-Unicode", List.of("caf\u00e9 \u2713 \u6771\u4eac"));
      headers.put("X-None", List.of());
      responses.add(StoredResponse.of(201, headers, "{\"id\":42,\"note\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8)));
      responses.add(StoredResponse.of(500, Map.of(), new byte[0]));
      byte[] binary = new byte[256 + 4];
      for (int i = 0; i < 256; i++) {
        binary[i] = (byte) i;
      }
      binary[256] = (byte) 0xC3;
      binary[257] = (byte) 0x28;
      binary[258] = (byte) 0xFF;
      binary[259] = 0;
      responses.add(StoredResponse.of(422, Map.of("Content-Type", List.of("application/octet-stream")), binary));
      byte[] large = new byte[64 * 1024];
      new SplittableRandom(context.seed()).nextBytes(large);
      responses.add(StoredResponse.of(299, Map.of(), large));
      responses.add(StoredResponse.of(999, Map.of("Retry-After", List.of("0")), "\r\n\t ".getBytes(StandardCharsets.UTF_8)));
      List<KeyStore> all = instances();
      for (int i = 0; i < responses.size(); i++) {
        RecordId id = id("response-" + i);
        StoredResponse response = responses.get(i);
        ClaimOutcome.Claimed c = claimNew(id);
        complete(id, c.fence(), response, Rule.R5_1);
        for (int j = 0; j < all.size(); j++) {
          replays(claim(all.get(j), id, FP_A, timing.stableLease(), timing.stableWindow()), response, Rule.R5_1,
              "the replay of response #" + i + " through instance " + j);
        }
        RecordSnapshot s = present(id, Rule.R5_1, "after completion");
        verify.check(s.response().isPresent() && Samples.identical(s.response().get(), response), Rule.R5_1,
            () -> "lookup shows " + Describe.snapshot(s) + ", expected the response " + Describe.response(response));
      }
      verify.check(Arrays.equals(responses.get(2).body(), binary), Rule.R5_1, () -> "the TCK's own copy changed");
    }

    @Test
    @DisplayName("Rule 5.2: completion is final: later writes with the fence are refused")
    void required_5_2_completionIsFinal() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      StoredResponse first = Samples.response("first");
      complete(id, c.fence(), first, Rule.R5_2);
      Optional<RecordSnapshot> before = lookup(id);
      verify.leaseLost(Rule.R5_2, "a second complete with the same fence",
          () -> store.complete(id, c.fence(), Samples.response("second"), now()));
      verify.leaseLost(Rule.R5_2, "a heartbeat after completion",
          () -> store.heartbeat(id, c.fence(), now(), timing.stableLease()));
      verify.leaseLost(Rule.R5_2, "a checkpoint after completion",
          () -> store.checkpoint(id, c.fence(), Samples.point("late"), now(), timing.stableLease()));
      verify.leaseLost(Rule.R5_2, "a release after completion", () -> store.release(id, c.fence(), now()));
      unchanged(id, before, Rule.R5_2, "the refused writes after completion");
      replays(claim(id, FP_A), first, Rule.R5_2, "a retry after the refused writes");
    }

    @Test
    @DisplayName("Rule 5.3: release makes the record absent; the next claim, with any fingerprint, starts anew")
    void required_5_3_releaseMakesTheRecordAbsent() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      verify.succeeds(Rule.R4_6, "the owner's checkpoint", () -> store.checkpoint(id, c.fence(),
          Samples.point("p1"), now(), timing.stableLease()));
      verify.succeeds(Rule.R5_3, "the owner's release", () -> store.release(id, c.fence(), now()));
      absent(id, Rule.R5_3, "after release");
      ClaimOutcome next = claim(id, FP_B);
      fresh(next, c.fence(), Rule.R5_3, "a claim with another fingerprint after release");
      RecordSnapshot s = present(id, Rule.R5_3, "after the new claim");
      verify.check(s.fingerprint().equals(FP_B) && s.recoveryPoint().isEmpty(), Rule.R5_3, () -> "after a release"
          + " and a new claim lookup shows " + Describe.snapshot(s) + ", expected the new fingerprint and no"
          + " recovery point");
      FenceToken second = ((ClaimOutcome.Claimed) next).fence();
      verify.succeeds(Rule.R5_3, "the new owner's release", () -> store.release(id, second, now()));
      fresh(claim(id, FP_A), second, Rule.R5_3, "the first request again after the second release");
    }

    @Test
    @DisplayName("Rule 5.4: replays and mismatches do not extend the replay window")
    void required_5_4_replaysAndMismatchesChangeNothing() {
      RecordId id = id("k1");
      Duration window = timing.window();
      ClaimOutcome.Claimed c = claimNew(id);
      StoredResponse response = Samples.response("first");
      Timeline tl = timeline();
      complete(id, c.fence(), response, Rule.R5_4);
      Optional<RecordSnapshot> before = lookup(id);
      tl.justBefore(window);
      for (int i = 0; i < 3; i++) {
        replays(claim(store, id, FP_A, timing.stableLease(), window), response, Rule.R5_4, "a replay");
        verify.mismatch(claim(store, id, FP_B, timing.stableLease(), window), Rule.R5_4, "another request");
      }
      unchanged(id, before, Rule.R5_4, "replays and mismatches");
      tl.at(window);
      fresh(claim(store, id, FP_A, timing.stableLease(), window), c.fence(), Rule.R5_4,
          "a claim once the window of the completion passed (replays do not extend it)");
    }
  }

  /** Rules 6.x: what names a record. */
  @Nested
  @DisplayName("6. Scopes and record identity")
  class ScopeRules {

    @Test
    @DisplayName("Rule 6.1: the same key under two scopes names two independent records")
    void required_6_1_sameKeyInTwoScopesNamesTwoRecords() {
      RecordId a = Samples.id("tenant-a", "order-1");
      RecordId b = Samples.id("tenant-b", "order-1");
      ClaimOutcome.Claimed ca = claimNew(a, FP_A, timing.stableLease());
      ClaimOutcome.Claimed cb = verify.claimed(claim(b, FP_B), Rule.R6_1, "the first claim of " + b + " while " + a
          + " is in flight");
      StoredResponse ra = Samples.response("tenant-a");
      complete(a, ca.fence(), ra, Rule.R6_1);
      verify.inFlight(claim(b, FP_B), Rule.R6_1, "a claim of " + b + " after " + a + " completed");
      replays(claim(a, FP_A), ra, Rule.R6_1, "a claim of " + a);
      verify.succeeds(Rule.R6_1, "release of " + b, () -> store.release(b, cb.fence(), now()));
      RecordSnapshot sa = present(a, Rule.R6_1, "after " + b + " was released");
      verify.check(sa.state() == KeyState.COMPLETE, Rule.R6_1, () -> "releasing " + b + " changed " + a + ": "
          + Describe.snapshot(sa));
      fresh(claim(b, FP_A), cb.fence(), Rule.R6_1, "a claim of the released " + b);
    }

    @Test
    @DisplayName("Rule 6.2: record identity is exact: case, length, separators, non-ASCII")
    void required_6_2_recordIdentityIsExact() {
      String long255 = "k".repeat(254);
      List<RecordId> ids = List.of(
          Samples.id("scope", "Key"), Samples.id("scope", "key"), Samples.id("Scope", "key"),
          Samples.id("a/b", "c"), Samples.id("a", "b/c"), Samples.id("a:b", "c"), Samples.id("a", "b:c"),
          Samples.id("a", "bc"), Samples.id("ab", "c"), Samples.id("a|b", "c"), Samples.id("a", "b|c"),
          Samples.id("scope", "a_c"), Samples.id("scope", "abc"), Samples.id("scope", "a%"),
          Samples.id("scope", "a'\"\\*?"),
          Samples.id("scope", long255 + "x"), Samples.id("scope", long255 + "y"), Samples.id("scope", long255),
          Samples.id("z\u00fcrich \u6771\u4eac \u2713", "k"), Samples.id("zurich", "k"),
          Samples.id("s".repeat(255), "k"), Samples.id("s".repeat(254), "k"), Samples.id("scope ", "k"),
          Samples.id("scope", "k"), Samples.id("scope", "K"));
      List<FenceToken> fences = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        RecordId id = ids.get(i);
        ClaimOutcome outcome = claim(id, Samples.fingerprint("request " + i));
        int index = i;
        verify.check(outcome instanceof ClaimOutcome.Claimed c && !c.takeover(), Rule.R6_2, () -> "the first claim"
            + " of " + quote(id) + " returned " + Describe.outcome(outcome) + ": it collides with one of "
            + ids.subList(0, index).stream().map(KeyStoreContract::quote).toList());
        fences.add(((ClaimOutcome.Claimed) outcome).fence());
      }
      for (int i = 0; i < ids.size(); i++) {
        complete(ids.get(i), fences.get(i), Samples.response(ids.get(i).scope().value() + "|" + ids.get(i).key()),
            Rule.R6_2);
      }
      for (int i = 0; i < ids.size(); i++) {
        RecordId id = ids.get(i);
        StoredResponse own = Samples.response(id.scope().value() + "|" + id.key());
        replays(claim(id, Samples.fingerprint("request " + i)), own, Rule.R6_2, "the replay of " + quote(id));
        RecordSnapshot s = present(id, Rule.R6_2, "record " + quote(id));
        verify.check(s.id().equals(id), Rule.R6_2, () -> "lookup(" + quote(id) + ") returned the record of "
            + quote(s.id()));
      }
    }
  }

  private static String quote(RecordId id) {
    return "(\"" + id.scope().value() + "\", \"" + id.key().value() + "\")";
  }

  /** Rules 7.x: deleteExpired and findAbandoned. */
  @Nested
  @DisplayName("7. Retention, the reaper and abandoned records")
  class RetentionRules {

    @Test
    @DisplayName("Rule 7.1: a completed record is deleted once completedAt + retention <= now, and not before")
    void required_7_1_completedRecordIsDeletedOnceRetentionPassed() {
      RecordId id = id("k1");
      Duration retention = timing.retention();
      ClaimOutcome.Claimed c = claimNew(id);
      Timeline tl = timeline();
      complete(id, c.fence(), Samples.response("kept"), Rule.R7_1);
      tl.at(timing.window());
      int n0 = store.deleteExpired(now(), retention, 10);
      verify.check(n0 == 0, Rule.R7_1, () -> "past the window but within retention, deleteExpired returned " + n0);
      present(id, Rule.R7_1, "past the window but within retention");
      tl.justBefore(retention);
      int n1 = store.deleteExpired(now(), retention, 10);
      verify.check(n1 == 0, Rule.R7_1, () -> "just before retention passed, deleteExpired returned " + n1);
      present(id, Rule.R7_1, "just before retention passed");
      tl.at(retention);
      int n2 = store.deleteExpired(now(), retention, 10);
      verify.check(n2 == 1, Rule.R7_1, () -> "once retention passed, deleteExpired returned " + n2 + ", expected 1");
      absent(id, Rule.R7_1, "once retention passed and deleteExpired ran");
    }

    @Test
    @DisplayName("Rule 7.2: an in-flight record is deleted once its lease expired retention ago, never while live")
    void required_7_2_abandonedRecordIsDeletedOnceItsLeaseExpiredRetentionAgo() {
      RecordId abandoned = id("abandoned");
      Duration lease = timing.lease();
      Duration retention = timing.retention();
      Timeline tl = timeline();
      claimNew(abandoned, FP_A, lease);
      tl.at(lease);
      RecordId live = id("live");
      claimNew(live, FP_A, timing.stableLease().plus(retention).plus(retention));
      int n0 = store.deleteExpired(now(), retention, 10);
      verify.check(n0 == 0, Rule.R7_2, () -> "right after a lease expired, deleteExpired returned " + n0);
      tl.justBefore(lease.plus(retention));
      int n1 = store.deleteExpired(now(), retention, 10);
      verify.check(n1 == 0, Rule.R7_2, () -> "just before the lease expired retention ago, deleteExpired returned "
          + n1);
      present(abandoned, Rule.R7_2, "just before the lease expired retention ago");
      tl.at(lease.plus(retention));
      int n2 = store.deleteExpired(now(), retention, 10);
      verify.check(n2 == 1, Rule.R7_2, () -> "once the lease expired retention ago, deleteExpired returned " + n2
          + ", expected 1 (the abandoned record; the live one stays)");
      absent(abandoned, Rule.R7_2, "once the lease expired retention ago");
      present(live, Rule.R7_2, "a live record");
    }

    @Test
    @DisplayName("Rule 7.3: deleteExpired works in bounded batches that drain, and spares records within retention")
    void required_7_3_deleteExpiredWorksInBoundedBatches() {
      Duration retention = timing.retention();
      Timeline tl = timeline();
      List<RecordId> old = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        RecordId id = id("old-" + i);
        old.add(id);
        complete(id, claimNew(id).fence(), Samples.response("old " + i), Rule.R7_3);
      }
      tl.at(retention.dividedBy(2));
      List<RecordId> recent = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        RecordId id = id("recent-" + i);
        recent.add(id);
        complete(id, claimNew(id).fence(), Samples.response("recent " + i), Rule.R7_3);
      }
      tl.at(retention);
      RecordId live = id("live");
      claimNew(live);
      List<Integer> counts = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        counts.add(store.deleteExpired(now(), retention, 2));
      }
      verify.check(counts.equals(List.of(2, 2, 1, 0)), Rule.R7_3, () -> "with 5 records past retention, four calls"
          + " of deleteExpired(limit=2) returned " + counts + ", expected [2, 2, 1, 0]");
      for (RecordId id : old) {
        absent(id, Rule.R7_3, "a record past retention after the batches drained");
      }
      for (RecordId id : recent) {
        present(id, Rule.R7_1, "a record completed less than retention ago");
      }
      present(live, Rule.R7_2, "a live record");
    }

    @Test
    @DisplayName("Rule 7.4: a purged record counts as absent")
    void required_7_4_purgedRecordCountsAsAbsent() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      Timeline tl = timeline();
      complete(id, c.fence(), Samples.response("purged"), Rule.R7_4);
      tl.at(timing.retention());
      int n = store.deleteExpired(now(), timing.retention(), 10);
      verify.check(n == 1, Rule.R7_1, () -> "once retention passed, deleteExpired returned " + n + ", expected 1");
      absent(id, Rule.R7_4, "after the purge");
      fresh(claim(id, FP_B), c.fence(), Rule.R7_4, "another request with the purged key");
    }

    @Test
    @DisplayName("Rule 7.5: findAbandoned returns expired in-flight records, oldest lease first, up to limit")
    void required_7_5_findAbandonedReturnsExpiredLeasesOldestFirst() {
      Duration lease = timing.lease();
      RecordId late = id("late");
      RecordId early = id("early");
      RecordId done = id("done");
      Timeline tl = timeline();
      ClaimOutcome.Claimed cl = claimNew(late, FP_A, lease.multipliedBy(2));
      ClaimOutcome.Claimed ce = claimNew(early, FP_B, lease);
      ClaimOutcome.Claimed cd = claimNew(done, FP_A, lease);
      verify.succeeds(Rule.R4_6, "a checkpoint", () -> store.checkpoint(early, ce.fence(), Samples.point("p"),
          tl.start(), lease));
      complete(done, cd.fence(), Samples.response("done"), Rule.R7_5);
      tl.justBefore(lease);
      List<RecordSnapshot> none = store.findAbandoned(now(), 10);
      verify.check(none.isEmpty(), Rule.R7_5, () -> "before any lease expired findAbandoned returned "
          + Describe.snapshots(none));
      tl.at(lease);
      List<RecordSnapshot> one = store.findAbandoned(now(), 10);
      verify.check(one.size() == 1 && one.get(0).id().equals(early), Rule.R7_5, () -> "once the lease of " + early
          + " expired" + (timing.isRealTime() ? "" : " (exactly now)") + " findAbandoned returned "
          + Describe.snapshots(one) + ", expected only " + early);
      RecordSnapshot snap = one.get(0);
      verify.check(snap.equals(present(early, Rule.R7_5, "an abandoned record")) && snap.state() == KeyState.IN_FLIGHT
          && snap.fence().equals(ce.fence()) && snap.fingerprint().equals(FP_B)
          && snap.recoveryPoint().equals(Optional.of(Samples.point("p"))), Rule.R7_5, () -> "findAbandoned's snapshot "
          + Describe.snapshot(snap) + " differs from lookup " + Describe.snapshot(lookup(early)));
      tl.at(lease.multipliedBy(2));
      RecordId live = id("live");
      claimNew(live);
      List<RecordSnapshot> two = store.findAbandoned(now(), 10);
      verify.check(two.size() == 2 && two.get(0).id().equals(early) && two.get(1).id().equals(late), Rule.R7_5,
          () -> "with two expired leases findAbandoned returned " + Describe.snapshots(two) + ", expected [" + early
              + ", " + late + "], oldest lease first");
      List<RecordSnapshot> first = store.findAbandoned(now(), 1);
      verify.check(first.size() == 1 && first.get(0).id().equals(early), Rule.R7_5, () -> "findAbandoned(limit=1)"
          + " returned " + Describe.snapshots(first) + ", expected only the oldest, " + early);
      ClaimOutcome.Claimed t = verify.claimed(claim(late, FP_A), Rule.R7_5, "a takeover of a record findAbandoned"
          + " returned (findAbandoned only reads)");
      verify.check(t.takeover() && t.fence().isNewerThan(cl.fence()), Rule.R4_2, () -> "expected a takeover, got "
          + Describe.outcome(t));
    }
  }

  /** Rules 8.x: which clock the store judges time by. */
  @Nested
  @DisplayName("8. The server clock")
  class ServerClockRules {

    @Test
    @DisplayName("Rule 8.1: a SERVER_CLOCK store ignores the now it is given")
    void optional_8_1_serverClockIgnoresTheGivenNow() {
      Assumptions.assumeTrue(has(StoreCapability.SERVER_CLOCK), "the store does not declare SERVER_CLOCK, so it"
          + " judges time by the now it is given (rule 8.2 applies instead)");
      RecordId open = id("open");
      RecordId done = id("done");
      claimNew(open);
      ClaimOutcome.Claimed cd = claimNew(done);
      StoredResponse response = Samples.response("done");
      complete(done, cd.fence(), response, Rule.R8_1);
      Instant future = now().plus(Duration.ofDays(400));
      verify.inFlight(store.claim(new ClaimRequest(open, FP_A, future, timing.stableLease(), timing.stableWindow())),
          Rule.R8_1, "a claim whose now is 400 days ahead of the server's clock, while the lease is live by it");
      replays(store.claim(new ClaimRequest(done, FP_A, future, timing.stableLease(), timing.stableWindow())),
          response, Rule.R8_1, "a retry whose now is 400 days ahead, within the window by the server's clock");
      List<RecordSnapshot> found = store.findAbandoned(future, 10);
      verify.check(found.isEmpty(), Rule.R8_1, () -> "findAbandoned with a now 400 days ahead returned "
          + Describe.snapshots(found));
      int n = store.deleteExpired(future, timing.stableRetention(), 10);
      verify.check(n == 0, Rule.R8_1, () -> "deleteExpired with a now 400 days ahead returned " + n);
      present(open, Rule.R8_1, "after deleteExpired with a future now");
      present(done, Rule.R8_1, "after deleteExpired with a future now");
      RecordId past = id("past");
      Instant longAgo = Instant.parse("1999-12-31T23:59:59Z");
      verify.claimed(store.claim(new ClaimRequest(past, FP_A, longAgo, timing.stableLease(), timing.stableWindow())),
          Rule.R1_1, "a claim whose now is in 1999");
      RecordSnapshot s = present(past, Rule.R8_1, "a claim with a now in 1999");
      verify.check(s.leaseExpiresAt().orElseThrow().isAfter(longAgo.plus(Duration.ofDays(365))), Rule.R8_1,
          () -> "a claim with a now in 1999 holds a lease until " + s.leaseExpiresAt().orElseThrow()
              + ", which is not by the server's clock");
      verify.inFlight(claim(past, FP_A), Rule.R8_1, "a retry with the real time as now, after a claim whose now was"
          + " in 1999 (by the server's clock its lease is live)");
    }

    @Test
    @DisplayName("Rule 8.2: a store without SERVER_CLOCK judges time by the now it is given alone")
    void required_8_2_withoutServerClockTimeIsJudgedByNowAlone() {
      Assumptions.assumeFalse(has(StoreCapability.SERVER_CLOCK), "the store declares SERVER_CLOCK (rule 8.1"
          + " applies instead)");
      Duration lease = timing.lease();
      int round = 0;
      for (Instant start : List.of(Instant.parse("1999-12-31T23:59:59.500Z"), Instant.parse("2095-06-01T12:00:00Z"))) {
        RecordId id = id("k" + ++round);
        clock.set(start);
        ClaimOutcome.Claimed c = claimNew(id, FP_A, lease);
        clock.set(start.plus(lease).minusMillis(1));
        verify.inFlight(claim(store, id, FP_A, lease, timing.window()), Rule.R8_2, "a claim 1 ms before the lease"
            + " ends by now=" + now() + " (the lease started at now=" + start + ")");
        clock.set(start.plus(lease));
        ClaimOutcome.Claimed t = verify.claimed(claim(store, id, FP_A, lease, timing.window()), Rule.R8_2,
            "a claim when the lease ends by now=" + now() + " (the lease started at now=" + start + ")");
        StoredResponse response = Samples.response("at " + start);
        Instant completedAt = now();
        complete(id, t.fence(), response, Rule.R8_2);
        clock.set(completedAt.plus(timing.window()).minusMillis(1));
        replays(claim(store, id, FP_A, lease, timing.window()), response, Rule.R8_2, "a retry 1 ms before the"
            + " window ends by now=" + now());
        clock.set(completedAt.plus(timing.window()));
        fresh(claim(store, id, FP_A, lease, timing.window()), t.fence(), Rule.R8_2, "a claim when the window ends"
            + " by now=" + now() + " (completed at now=" + completedAt + ")");
      }
    }
  }

  /** Rules 9.x: arguments and the capability declaration. */
  @Nested
  @DisplayName("9. Arguments and capabilities")
  class ArgumentRules {

    @Test
    @DisplayName("Rule 9.1: a null argument throws NullPointerException and changes nothing")
    void required_9_1_nullArgumentsThrowNullPointerException() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      FenceToken f = c.fence();
      Duration l = timing.stableLease();
      RecoveryPoint p = Samples.point("p");
      StoredResponse r = Samples.response("r");
      Instant t = now();
      Optional<RecordSnapshot> before = lookup(id);
      Map<String, Runnable> calls = new LinkedHashMap<>();
      calls.put("claim(null)", () -> store.claim(null));
      calls.put("heartbeat(null id)", () -> store.heartbeat(null, f, t, l));
      calls.put("heartbeat(null fence)", () -> store.heartbeat(id, null, t, l));
      calls.put("heartbeat(null now)", () -> store.heartbeat(id, f, null, l));
      calls.put("heartbeat(null lease)", () -> store.heartbeat(id, f, t, null));
      Map<RecordId, FenceToken> nullFence = new HashMap<>();
      nullFence.put(id, null);
      Map<RecordId, FenceToken> nullId = new HashMap<>();
      nullId.put(null, f);
      calls.put("heartbeatAll(null leases)", () -> store.heartbeatAll(null, t, l));
      calls.put("heartbeatAll(a null fence)", () -> store.heartbeatAll(nullFence, t, l));
      calls.put("heartbeatAll(a null id)", () -> store.heartbeatAll(nullId, t, l));
      calls.put("heartbeatAll(null now)", () -> store.heartbeatAll(Map.of(id, f), null, l));
      calls.put("heartbeatAll(null lease)", () -> store.heartbeatAll(Map.of(id, f), t, null));
      calls.put("checkpoint(null id)", () -> store.checkpoint(null, f, p, t, l));
      calls.put("checkpoint(null fence)", () -> store.checkpoint(id, null, p, t, l));
      calls.put("checkpoint(null point)", () -> store.checkpoint(id, f, null, t, l));
      calls.put("checkpoint(null now)", () -> store.checkpoint(id, f, p, null, l));
      calls.put("checkpoint(null lease)", () -> store.checkpoint(id, f, p, t, null));
      calls.put("complete(null id)", () -> store.complete(null, f, r, t));
      calls.put("complete(null fence)", () -> store.complete(id, null, r, t));
      calls.put("complete(null response)", () -> store.complete(id, f, null, t));
      calls.put("complete(null now)", () -> store.complete(id, f, r, null));
      calls.put("release(null id)", () -> store.release(null, f, t));
      calls.put("release(null fence)", () -> store.release(id, null, t));
      calls.put("release(null now)", () -> store.release(id, f, null));
      calls.put("lookup(null)", () -> store.lookup(null));
      calls.put("findAbandoned(null now)", () -> store.findAbandoned(null, 10));
      calls.put("deleteExpired(null now)", () -> store.deleteExpired(null, l, 10));
      calls.put("deleteExpired(null retention)", () -> store.deleteExpired(t, null, 10));
      for (Map.Entry<String, Runnable> call : calls.entrySet()) {
        verify.throwsA(NullPointerException.class, Rule.R9_1, call.getKey(), call.getValue());
      }
      unchanged(id, before, Rule.R9_1, "calls with a null argument");
      verify.inFlight(claim(id, FP_A), Rule.R9_1, "a claim after the calls with a null argument");
    }

    @Test
    @DisplayName("Rule 9.2: a non-positive lease, retention or limit throws IllegalArgumentException")
    void required_9_2_nonPositiveArgumentsThrowIllegalArgumentException() {
      RecordId id = id("k1");
      ClaimOutcome.Claimed c = claimNew(id);
      FenceToken f = c.fence();
      Instant t = now();
      Duration r = timing.stableRetention();
      Optional<RecordSnapshot> before = lookup(id);
      Map<String, Runnable> calls = new LinkedHashMap<>();
      calls.put("heartbeat(lease=0)", () -> store.heartbeat(id, f, t, Duration.ZERO));
      calls.put("heartbeat(lease=-1s)", () -> store.heartbeat(id, f, t, Duration.ofSeconds(-1)));
      calls.put("heartbeatAll(lease=0)", () -> store.heartbeatAll(Map.of(id, f), t, Duration.ZERO));
      calls.put("checkpoint(lease=0)", () -> store.checkpoint(id, f, Samples.point("p"), t, Duration.ZERO));
      calls.put("checkpoint(lease=-1s)", () -> store.checkpoint(id, f, Samples.point("p"), t, Duration.ofSeconds(-1)));
      calls.put("findAbandoned(limit=0)", () -> store.findAbandoned(t, 0));
      calls.put("findAbandoned(limit=-1)", () -> store.findAbandoned(t, -1));
      calls.put("deleteExpired(retention=0)", () -> store.deleteExpired(t, Duration.ZERO, 10));
      calls.put("deleteExpired(retention=-1s)", () -> store.deleteExpired(t, Duration.ofSeconds(-1), 10));
      calls.put("deleteExpired(limit=0)", () -> store.deleteExpired(t, r, 0));
      calls.put("deleteExpired(limit=-1)", () -> store.deleteExpired(t, r, -1));
      for (Map.Entry<String, Runnable> call : calls.entrySet()) {
        verify.throwsA(IllegalArgumentException.class, Rule.R9_2, call.getKey(), call.getValue());
      }
      unchanged(id, before, Rule.R9_2, "calls with a non-positive argument");
    }

    @Test
    @DisplayName("Rule 9.3: capabilities() is stable and unmodifiable, and TRANSACTIONAL means TransactionalKeyStore")
    void required_9_3_capabilitiesAreStable() {
      Set<StoreCapability> first = store.capabilities();
      verify.check(first != null, Rule.R9_3, () -> "capabilities() returned null");
      verify.check(first.equals(store.capabilities()), Rule.R9_3, () -> "capabilities() changed between two calls");
      boolean modifiable = true;
      try {
        if (first.contains(StoreCapability.SHARED)) {
          first.remove(StoreCapability.SHARED);
          first.add(StoreCapability.SHARED);
        } else {
          first.add(StoreCapability.SHARED);
          first.remove(StoreCapability.SHARED);
        }
      } catch (UnsupportedOperationException expected) {
        modifiable = false;
      }
      boolean changed = modifiable;
      verify.check(!changed, Rule.R9_3, () -> "the set capabilities() returned can be modified");
      verify.check(!first.contains(StoreCapability.TRANSACTIONAL) || store instanceof TransactionalKeyStore<?>,
          Rule.R9_3, () -> "the store declares TRANSACTIONAL but does not implement TransactionalKeyStore");
    }

    @Test
    @DisplayName("Rule 9.4: a store that cannot reach its storage throws StoreUnavailableException (not testable here)")
    void untested_9_4_unreachableStorageThrowsStoreUnavailableException() {
      Assumptions.abort("the TCK cannot take a store's storage down; test rule 9.4 in the store's own suite (stop"
          + " the server, or point the store at a closed port, and expect StoreUnavailableException)");
    }
  }
}
