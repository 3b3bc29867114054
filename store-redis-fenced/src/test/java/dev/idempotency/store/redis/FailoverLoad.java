package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keys called through a store while its primary fails over: {@link #KEYS} keys, {@link
 * #CALLERS_PER_KEY} concurrent callers each, every caller a client that retries with the same key
 * until it gets the stored result (claim, the work counted per key, complete). A caller that ran
 * the work retries its {@code complete} with its fence until the store takes it or says the lease
 * is lost, and then claims again, as a client retrying its request. Only {@code
 * StoreUnavailableException} is retried: any other failure fails the run. The fault is struck once
 * a third of the calls are done; a last pass calls every key once more, as a client retrying later,
 * so that a key whose record the failover lost ends complete. The lease (20 s) is longer than the
 * outage, so no takeover happens while a winner retries its completion: a key runs twice only when
 * the failover lost a write the store had acknowledged. (With a 10 s lease, one run whose outage
 * lasted 9.9 s ran a key twice by a takeover: these callers claim on the store itself, with no
 * heartbeat, so the lease counts from the claim.)
 */
final class FailoverLoad {
  static final int KEYS = 200;
  static final int CALLERS_PER_KEY = 2;
  private static final int THREADS = 16;
  private static final Duration WORK = Duration.ofMillis(15);
  private static final Duration LEASE = Duration.ofSeconds(20);
  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Fingerprint FP = Fingerprint.of("req".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse RESPONSE =
      StoredResponse.of(200, "ok".getBytes(StandardCharsets.UTF_8));

  /** The fault the test strikes: a primary killed, and whatever it does before or after. */
  interface Fault {
    void strike() throws Exception;
  }

  /**
   * What a run measured.
   *
   * @param claimsSent every claim call, the retries after an error and the polls of a key in flight
   *     included
   * @param sideEffects the work's runs, all keys together
   * @param unavailable the longest any caller waited for the store: from the start of a call that
   *     failed to the end of its caller's next call the store answered
   */
  record Figures(
      String scenario,
      int keys,
      long claimsSent,
      long sideEffects,
      long keysRunTwice,
      Duration unavailable,
      Map<String, Integer> outcomes) {

    @Override
    public String toString() {
      return String.format(
          "FAILOVER %s: %d keys, %d claims sent, %d side effects, %d keys run twice,"
              + " unavailable %.2f s; outcomes %s",
          scenario,
          keys,
          claimsSent,
          sideEffects,
          keysRunTwice,
          unavailable.toMillis() / 1000.0,
          outcomes);
    }
  }

  private FailoverLoad() {}

  /**
   * Runs the keys through {@code store}, strikes {@code fault} a third of the way through, and
   * checks that every key ran and ended complete. Prints the figures and returns them.
   */
  static Figures run(String scenario, KeyStore store, Fault fault) throws Exception {
    Map<RecordId, AtomicInteger> workRuns = new ConcurrentHashMap<>();
    List<RecordId> ids = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      RecordId id = RecordId.of("acct", "failover-" + i);
      ids.add(id);
      workRuns.put(id, new AtomicInteger());
    }
    Caller caller = new Caller(store, workRuns);
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> calls = new ArrayList<>();
      for (RecordId id : ids) {
        for (int c = 0; c < CALLERS_PER_KEY; c++) {
          calls.add(threads.submit(() -> caller.call(id)));
        }
      }
      long waitEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (caller.done.get() < KEYS * CALLERS_PER_KEY / 3 && System.nanoTime() < waitEnd) {
        TimeUnit.MILLISECONDS.sleep(2);
      }
      assertThat(caller.done.get())
          .as("calls done before the fault")
          .isLessThan(KEYS * CALLERS_PER_KEY);
      fault.strike();
      for (Future<?> f : calls) {
        f.get(60, TimeUnit.SECONDS);
      }
      List<Future<?>> later = new ArrayList<>();
      for (RecordId id : ids) {
        later.add(threads.submit(() -> caller.call(id)));
      }
      for (Future<?> f : later) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }

    for (RecordId id : ids) {
      assertThat(store.lookup(id).map(RecordSnapshot::state))
          .as("the state of %s on the new primary", id)
          .contains(KeyState.COMPLETE);
    }
    assertThat(workRuns.values()).allSatisfy(n -> assertThat(n.get()).isPositive());
    Figures figures =
        new Figures(
            scenario,
            KEYS,
            caller.claimsSent.get(),
            workRuns.values().stream().mapToLong(AtomicInteger::get).sum(),
            workRuns.values().stream().filter(n -> n.get() > 1).count(),
            Duration.ofNanos(caller.longestWait.get()),
            caller.outcomes());
    System.out.println(figures);
    return figures;
  }

  /** A client calling with one key until it has the stored result. */
  private static final class Caller {
    private final KeyStore store;
    private final Map<RecordId, AtomicInteger> workRuns;
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    final AtomicInteger done = new AtomicInteger();
    final AtomicLong claimsSent = new AtomicLong();
    final AtomicLong longestWait = new AtomicLong();

    Caller(KeyStore store, Map<RecordId, AtomicInteger> workRuns) {
      this.store = store;
      this.workRuns = workRuns;
    }

    void call(RecordId id) {
      try {
        callUninterruptibly(id);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void callUninterruptibly(RecordId id) throws InterruptedException {
      boolean failedOnce = false;
      long failedSince = -1; // the start of the first call of a run of failed ones
      while (true) {
        ClaimOutcome outcome;
        long sent = System.nanoTime();
        try {
          claimsSent.incrementAndGet();
          outcome = store.claim(new ClaimRequest(id, FP, Instant.now(), LEASE, WINDOW));
          failedSince = answered(failedSince);
        } catch (StoreUnavailableException e) { // the client retries, same key
          failedOnce = true;
          failedSince = failedSince < 0 ? sent : failedSince;
          TimeUnit.MILLISECONDS.sleep(50);
          continue;
        }
        if (outcome instanceof ClaimOutcome.Completed) {
          count(failedOnce ? "replayed after an error" : "replayed");
          return;
        }
        if (outcome instanceof ClaimOutcome.InFlight) {
          TimeUnit.MILLISECONDS.sleep(20);
          continue;
        }
        if (!(outcome instanceof ClaimOutcome.Claimed claimed)) {
          throw new AssertionError(id + ": " + outcome);
        }
        workRuns.get(id).incrementAndGet(); // the side effect
        TimeUnit.NANOSECONDS.sleep(WORK.toNanos());
        while (true) {
          sent = System.nanoTime();
          try {
            store.complete(id, claimed.fence(), RESPONSE, Instant.now());
            answered(failedSince);
            count(failedOnce ? "ran the work, after an error" : "ran the work");
            return;
          } catch (LeaseLostException e) {
            failedSince = answered(failedSince);
            outcomes
                .computeIfAbsent("lease lost after the work", o -> new AtomicInteger())
                .incrementAndGet();
            failedOnce = true;
            break; // claim again: the client retries its key
          } catch (StoreUnavailableException e) {
            failedOnce = true;
            failedSince = failedSince < 0 ? sent : failedSince;
            TimeUnit.MILLISECONDS.sleep(50);
          }
        }
      }
    }

    /** A call the store answered: ends the caller's wait that began with {@code failedSince}. */
    private long answered(long failedSince) {
      if (failedSince >= 0) {
        longestWait.accumulateAndGet(System.nanoTime() - failedSince, Math::max);
      }
      return -1;
    }

    private void count(String outcome) {
      outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
      done.incrementAndGet();
    }

    Map<String, Integer> outcomes() {
      Map<String, Integer> sorted = new TreeMap<>();
      outcomes.forEach((k, v) -> sorted.put(k, v.get()));
      return sorted;
    }
  }
}
