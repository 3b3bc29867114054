package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The concurrency gate (rules 2.3, 2.4, 2.5): N threads race one fresh record behind a start latch,
 * through the store and its peers in turn, round after round. Exactly one claim may win; the winner
 * performs a counted side effect and completes with a response that names the round; every loser
 * sees InFlight or that response, byte for byte; afterwards every instance replays it. The takeover
 * race does the same for concurrent takeovers of one expired lease.
 *
 * <p>Threads are platform threads of one pool per gate; each race waits at most 30 s, so a
 * deadlocked store fails the rule instead of hanging the build. {@link RacingThreads} starts and
 * bounds each race; this class says what each racer does and judges the attempts.
 */
public final class ConcurrencyGate implements AutoCloseable {
  private static final long TIMEOUT_SECONDS = RacingThreads.TIMEOUT_SECONDS;

  private final List<KeyStore> stores;
  private final TckClock clock;
  private final Timing timing;
  private final Verifier verifier;
  private final RacingThreads threads;

  /**
   * A gate over {@code stores} (the store first, then its peers), with threads for up to {@code
   * maxThreads}.
   */
  public ConcurrencyGate(
      List<KeyStore> stores, TckClock clock, Timing timing, Verifier verifier, int maxThreads) {
    this.stores = List.copyOf(stores);
    this.clock = clock;
    this.timing = timing;
    this.verifier = verifier;
    this.threads = new RacingThreads(this.stores, verifier, maxThreads);
  }

  /**
   * Runs {@code rounds} races for each thread count. With {@code holdUntilAllClaimed} a winner
   * completes only once every thread's claim has returned (or after a second), so every claim of
   * the race meets the record in flight: a store that lets a second claim of an in-flight record
   * win is caught however fast it is. Without, the winner completes at once, so losers meet it in
   * flight or completed.
   */
  public void claimRaces(int[] threadCounts, int rounds, boolean holdUntilAllClaimed) {
    Fingerprint fp = Samples.fingerprint("POST /orders {\"sku\":\"gate\"}");
    for (int n : threadCounts) {
      for (int round = 1; round <= rounds; round++) {
        claimRace(n, round, fp, holdUntilAllClaimed);
      }
    }
  }

  private void claimRace(int n, int round, Fingerprint fp, boolean hold) {
    RecordId id = Samples.id("gate", (hold ? "h" : "") + "n" + n + "-r" + round);
    CountDownLatch claimed = new CountDownLatch(n);
    String where =
        "key " + id + " (N=" + n + ", round " + round + ", " + stores.size() + " instances)";
    AtomicInteger sideEffects = new AtomicInteger();
    List<Attempt> attempts =
        threads.race(
            n,
            (thread, store) -> {
              ClaimOutcome outcome;
              try {
                outcome =
                    store.claim(
                        new ClaimRequest(
                            id, fp, clock.instant(), timing.stableLease(), timing.stableWindow()));
              } finally {
                claimed.countDown();
              }
              StoredResponse response = null;
              RuntimeException completeFailure = null;
              if (outcome instanceof ClaimOutcome.Claimed c) {
                sideEffects
                    .incrementAndGet(); // the operation the key protects: it must run once per race
                response = Samples.response("gate " + id + " winner T" + thread + " " + c.fence());
                if (hold) {
                  claimed.await(1, TimeUnit.SECONDS);
                }
                try {
                  store.complete(id, c.fence(), response, clock.instant());
                } catch (RuntimeException e) {
                  completeFailure = e;
                }
              }
              return new Attempt(thread, outcome, response, completeFailure);
            },
            Rule.R2_3,
            where);
    List<Attempt> winners = new ArrayList<>();
    for (Attempt a : attempts) {
      if (a.outcome() instanceof ClaimOutcome.Claimed) {
        winners.add(a);
      }
    }
    if (winners.size() != 1 || sideEffects.get() != 1) {
      StringBuilder sb = new StringBuilder();
      for (Attempt w : winners) {
        sb.append(sb.length() == 0 ? "" : ", ")
            .append("T")
            .append(w.thread())
            .append(" ")
            .append(Describe.outcome(w.outcome()));
      }
      throw verifier.violation(
          Rule.R2_3,
          winners.size()
              + " of "
              + n
              + " concurrent claims on "
              + where
              + " succeeded"
              + (winners.isEmpty() ? "" : " (" + sb + ")")
              + "; the protected operation ran "
              + sideEffects.get()
              + " times");
    }
    Attempt winner = winners.get(0);
    RuntimeException winnerFailure = winner.completeFailure();
    if (winnerFailure != null) {
      throw verifier.violation(
          Rule.R2_4,
          "the winner of " + where + " could not complete with its own fence: " + winnerFailure,
          winnerFailure);
    }
    StoredResponse winning =
        Objects.requireNonNull(winner.response(), "a won claim completes with a response");
    for (Attempt a : attempts) {
      // each thread makes one attempt, so the thread number tells the winner's apart from the
      // losers'
      if (a.thread() == winner.thread() || a.outcome() instanceof ClaimOutcome.InFlight) {
        continue;
      }
      if (!(a.outcome() instanceof ClaimOutcome.Completed c)
          || !Samples.identical(c.response(), winning)) {
        throw verifier.violation(
            Rule.R2_4,
            "a loser of "
                + where
                + " (T"
                + a.thread()
                + ") saw "
                + Describe.outcome(a.outcome())
                + ", expected InFlight or the winner's "
                + Describe.response(winning));
      }
    }
    for (int i = 0; i < n; i++) {
      ClaimOutcome after =
          stores
              .get(i % stores.size())
              .claim(
                  new ClaimRequest(
                      id, fp, clock.instant(), timing.stableLease(), timing.stableWindow()));
      if (!(after instanceof ClaimOutcome.Completed c)
          || !Samples.identical(c.response(), winning)) {
        throw verifier.violation(
            Rule.R2_4,
            "after the race on "
                + where
                + " was completed, thread T"
                + i
                + "'s"
                + " retry (through instance "
                + i % stores.size()
                + ") returned "
                + Describe.outcome(after)
                + ", expected the winner's "
                + Describe.response(winning));
      }
    }
  }

  /**
   * Races {@code n} claims for one record whose lease expired, {@code rounds} times: exactly one
   * takeover may win, with a larger fence; the others see InFlight; the old owner's complete is
   * refused and the winner's accepted.
   */
  public void takeoverRaces(int[] threadCounts, int rounds) {
    Fingerprint fp = Samples.fingerprint("POST /orders {\"sku\":\"takeover\"}");
    int round = 0;
    for (int r = 0; r < rounds; r++) {
      int n = threadCounts[r % threadCounts.length];
      round++;
      RecordId id = Samples.id("takeover", "n" + n + "-r" + round);
      String where = "key " + id + " (N=" + n + ", round " + round + ")";
      Timeline timeline = Timeline.start(clock, timing);
      ClaimOutcome first =
          stores
              .get(0)
              .claim(
                  new ClaimRequest(id, fp, timeline.now(), timing.lease(), timing.stableWindow()));
      ClaimOutcome.Claimed old = verifier.claimed(first, Rule.R1_1, "the first claim of " + id);
      timeline.at(timing.lease());
      List<Attempt> attempts =
          threads.race(
              n,
              (thread, store) ->
                  new Attempt(
                      thread,
                      store.claim(
                          new ClaimRequest(
                              id,
                              fp,
                              clock.instant(),
                              timing.stableLease(),
                              timing.stableWindow())),
                      null,
                      null),
              Rule.R2_5,
              where);
      List<ClaimOutcome.Claimed> winners = new ArrayList<>();
      for (Attempt a : attempts) {
        if (a.outcome() instanceof ClaimOutcome.Claimed c) {
          winners.add(c);
        } else if (!(a.outcome() instanceof ClaimOutcome.InFlight)) {
          throw verifier.violation(
              Rule.R2_5,
              "a concurrent takeover of "
                  + where
                  + " returned "
                  + Describe.outcome(a.outcome())
                  + ", expected Claimed(takeover) or InFlight");
        }
      }
      if (winners.size() != 1) {
        throw verifier.violation(
            Rule.R2_5,
            winners.size()
                + " of "
                + n
                + " concurrent takeovers of the expired lease"
                + " on "
                + where
                + " succeeded: "
                + winners);
      }
      ClaimOutcome.Claimed winner = winners.get(0);
      verifier
          .won(winner, Rule.R2_5, "the winner of the takeover race on " + where)
          .takeover()
          .fenceAbove(old.fence());
      verifier.leaseLost(
          Rule.R2_5,
          "the old owner's heartbeat with " + old.fence() + " after the takeover race on " + where,
          () -> stores.get(0).heartbeat(id, old.fence(), clock.instant(), timing.stableLease()));
      verifier.leaseLost(
          Rule.R2_5,
          "the old owner's checkpoint with " + old.fence() + " after the takeover race on " + where,
          () ->
              stores
                  .get(1 % stores.size())
                  .checkpoint(
                      id,
                      old.fence(),
                      Samples.point("stale"),
                      clock.instant(),
                      timing.stableLease()));
      verifier.leaseLost(
          Rule.R2_5,
          "the old owner's complete with " + old.fence() + " after the takeover race on " + where,
          () ->
              stores.get(0).complete(id, old.fence(), Samples.response("stale"), clock.instant()));
      verifier.succeeds(
          Rule.R2_5,
          "the takeover winner's heartbeat with " + winner.fence() + " on " + where,
          () -> stores.get(0).heartbeat(id, winner.fence(), clock.instant(), timing.stableLease()));
      StoredResponse response = Samples.response("takeover winner of " + id);
      verifier.succeeds(
          Rule.R2_5,
          "the takeover winner's complete with " + winner.fence() + " on " + where,
          () ->
              stores
                  .get(stores.size() - 1)
                  .complete(id, winner.fence(), response, clock.instant()));
      ClaimOutcome after =
          stores
              .get(0)
              .claim(
                  new ClaimRequest(
                      id, fp, clock.instant(), timing.stableLease(), timing.stableWindow()));
      if (!(after instanceof ClaimOutcome.Completed c)
          || !Samples.identical(c.response(), response)) {
        throw verifier.violation(
            Rule.R2_5,
            "after the takeover race on "
                + where
                + ", a claim returned "
                + Describe.outcome(after)
                + ", expected the winner's "
                + Describe.response(response));
      }
    }
  }

  /**
   * Rule 3.1 under concurrency: {@code n} threads, through the store and its peers, cycle claim →
   * release on one record until {@code winsPerThread} claims each have won (or {@code
   * TIMEOUT_SECONDS} pass). While a thread holds the record no other claim can win, so every fence
   * released before its claim returned belongs to an owner installed before it and must be smaller.
   * A store that draws the fence and installs the record in two steps fails here: another claimant
   * draws a later fence, installs and releases in between, and the earlier fence is installed after
   * it.
   */
  public void claimReleaseCycles(int n, int winsPerThread) {
    Fingerprint fp = Samples.fingerprint("POST /orders {\"sku\":\"cycle\"}");
    RecordId id = Samples.id("cycle", "n" + n);
    String where = "key " + id + " (N=" + n + ", " + stores.size() + " instances)";
    AtomicLong highestReleased = new AtomicLong();
    AtomicBoolean stop =
        new AtomicBoolean(); // set by the first thread that fails, so the others end at once
    AtomicInteger cycles = new AtomicInteger();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS / 2);
    threads.race(
        n,
        (thread, store) -> {
          int wins = 0;
          try {
            while (wins < winsPerThread && !stop.get() && System.nanoTime() < deadline) {
              ClaimOutcome outcome =
                  store.claim(
                      new ClaimRequest(
                          id, fp, clock.instant(), timing.stableLease(), timing.stableWindow()));
              if (outcome instanceof ClaimOutcome.InFlight) {
                Thread.onSpinWait();
                continue;
              }
              if (!(outcome instanceof ClaimOutcome.Claimed c)) {
                throw verifier.violation(
                    Rule.R5_3,
                    "T"
                        + thread
                        + "'s claim in the claim/release cycles on "
                        + where
                        + " returned "
                        + Describe.outcome(outcome)
                        + ", expected Claimed or InFlight (every owner releases)");
              }
              long released = highestReleased.get();
              if (c.fence().value() <= released) {
                throw verifier.violation(
                    Rule.R3_1,
                    "T"
                        + thread
                        + " won "
                        + where
                        + " with "
                        + c.fence()
                        + ", but "
                        + FenceToken.of(released)
                        + " had already been released before that claim returned (typically the"
                        + " fence is drawn before the record is installed, and another claim installed and released a later"
                        + " one in between)");
              }
              store.release(id, c.fence(), clock.instant());
              highestReleased.accumulateAndGet(c.fence().value(), Math::max);
              cycles.incrementAndGet();
              wins++;
            }
          } catch (RuntimeException | AssertionError e) {
            stop.set(true);
            throw e;
          }
          return new Attempt(thread, null, null, null);
        },
        Rule.R3_1,
        where);
    // the deadline ends the cycles quietly; a run in which they hardly happened checked nothing
    verifier.check(
        cycles.get() >= n,
        Rule.R3_1,
        () ->
            "only "
                + cycles.get()
                + " claim/release cycles completed on "
                + where
                + " in "
                + TIMEOUT_SECONDS / 2
                + " s, fewer than one per thread: a released record must be claimable"
                + " at once");
  }

  @Override
  public void close() {
    threads.close();
  }

  /**
   * One thread's part in a race, as it ended: the claim's outcome (null where the racer made no
   * single claim), and, for a winner, the response it completed with or what its complete threw.
   */
  private record Attempt(
      int thread,
      @Nullable ClaimOutcome outcome,
      @Nullable StoredResponse response,
      @Nullable RuntimeException completeFailure) {}

  /** The thread counts of the gate: 2 to 64, doubling. */
  public static int[] threadCounts() {
    return new int[] {2, 4, 8, 16, 32, 64};
  }
}
