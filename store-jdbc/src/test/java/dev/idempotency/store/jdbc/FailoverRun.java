package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
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
 * The run the failover tests share: {@value #KEYS} keys with {@value #CALLERS_PER_KEY} concurrent
 * callers each through a {@link JdbcKeyStore} (claim, the work counted per key, complete), a fault
 * injected a third of the way through, then a last pass that calls every key once more. Each caller
 * is a client that retries with the same key until it gets the stored result; a caller that won a
 * claim and ran the work retries its {@code complete} with its fence until the store takes it or
 * says the lease is lost (then it claims again). The last pass, a client retrying later, runs any
 * key whose record the failover lost, so that every key ends complete.
 */
final class FailoverRun {
  static final int KEYS = 200;
  static final int CALLERS_PER_KEY = 2;
  private static final int THREADS = 16;
  private static final Duration WORK = Duration.ofMillis(15);

  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Fingerprint FP = Fingerprint.of("req".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse RESPONSE =
      StoredResponse.of(200, "ok".getBytes(StandardCharsets.UTF_8));

  /** The fault: kills a server (and, for a test that promotes by hand, promotes the standby). */
  interface Fault {
    void inject() throws Exception;
  }

  /**
   * What a run measured.
   *
   * @param twice keys whose work ran more than once
   * @param unavailableSeconds from the fault to the last call that failed: callers met errors that
   *     long
   * @param stalledSeconds the longest time in which no store call succeeded: the outage as callers
   *     saw it, including the time a pool kept them waiting for a connection
   * @param longestCallSeconds the longest a caller waited for its key's result, from its first
   *     attempt: a key whose claim was in doubt at the crash stays in flight until its lease ends
   * @param outcomes how many calls ended each way
   */
  record Result(
      long twice,
      double unavailableSeconds,
      double stalledSeconds,
      double longestCallSeconds,
      Map<String, Integer> outcomes) {
    String line(String deployment) {
      return String.format(
          "FAILOVER %s: %d keys, %d run twice, errors for %.1f s, no call succeeded for %.1f s,"
              + " longest call %.1f s; outcomes %s",
          deployment,
          KEYS,
          twice,
          unavailableSeconds,
          stalledSeconds,
          longestCallSeconds,
          outcomes);
    }
  }

  private FailoverRun() {}

  /** A pool, as an application has, on {@code url} (a multi-host URL). */
  static HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setPassword("");
    config.setMaximumPoolSize(THREADS);
    config.setConnectionTimeout(3000);
    config.setValidationTimeout(1000);
    config.setPoolName("test-failover");
    return new HikariDataSource(config);
  }

  /**
   * Runs the keys {@code keyPrefix-0} … through {@code store}, injects {@code fault} a third of the
   * way through, and checks that every key ended complete and ran at least once.
   *
   * @param lease the claims' lease: longer than the outage, so that a caller that ran the work
   *     keeps its lease while it retries its completion, and no other caller takes the key over
   * @param callsDeadline how long the calls may take after the fault, the outage included
   */
  static Result run(
      JdbcKeyStore store, String keyPrefix, Duration lease, Fault fault, Duration callsDeadline)
      throws Exception {
    Map<RecordId, AtomicInteger> workRuns = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    List<RecordId> ids = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      RecordId id = RecordId.of("acct", keyPrefix + "-" + i);
      ids.add(id);
      workRuns.put(id, new AtomicInteger());
    }
    AtomicInteger done = new AtomicInteger();
    AtomicLong faultAt = new AtomicLong();
    AtomicLong lastErrorAt = new AtomicLong();
    Clocks clocks = new Clocks();
    Caller caller = new Caller(store, lease, workRuns, outcomes, done, lastErrorAt, clocks);

    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> calls = new ArrayList<>();
      for (RecordId id : ids) {
        for (int c = 0; c < CALLERS_PER_KEY; c++) {
          calls.add(threads.submit(() -> caller.call(id)));
        }
      }
      long waitEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (done.get() < KEYS * CALLERS_PER_KEY / 3 && System.nanoTime() < waitEnd) {
        TimeUnit.MILLISECONDS.sleep(5);
      }
      assertThat(done.get()).as("calls done before the fault").isLessThan(KEYS * CALLERS_PER_KEY);
      faultAt.set(System.nanoTime());
      fault.inject();
      long end = System.nanoTime() + callsDeadline.toNanos();
      awaitAll(calls, end);
      List<Future<?>> later = new ArrayList<>();
      for (RecordId id : ids) {
        later.add(threads.submit(() -> caller.call(id)));
      }
      awaitAll(later, end);
    } finally {
      threads.shutdownNow();
    }

    for (RecordId id : ids) {
      assertThat(store.lookup(id).map(RecordSnapshot::state))
          .as("the state of %s after the failover", id)
          .contains(KeyState.COMPLETE);
    }
    assertThat(workRuns.values()).allSatisfy(n -> assertThat(n.get()).isPositive());
    long twice = workRuns.values().stream().filter(n -> n.get() > 1).count();
    Map<String, Integer> counted = new TreeMap<>();
    outcomes.forEach((k, v) -> counted.put(k, v.get()));
    return new Result(
        twice,
        Math.max(0, lastErrorAt.get() - faultAt.get()) / 1e9,
        clocks.longestGap.get() / 1e9,
        clocks.longestCall.get() / 1e9,
        counted);
  }

  private static void awaitAll(List<Future<?>> calls, long endNanos) throws Exception {
    for (Future<?> f : calls) {
      f.get(Math.max(1, endNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
  }

  /** When store calls last succeeded, the longest gap between two of them, the longest call. */
  private static final class Clocks {
    final AtomicLong lastSuccess = new AtomicLong(System.nanoTime());
    final AtomicLong longestGap = new AtomicLong();
    final AtomicLong longestCall = new AtomicLong();

    void succeeded() {
      long now = System.nanoTime();
      long previous = lastSuccess.getAndAccumulate(now, Math::max);
      longestGap.accumulateAndGet(now - previous, Math::max);
    }
  }

  /** A client calling with one key until it has the stored result. */
  private record Caller(
      JdbcKeyStore store,
      Duration lease,
      Map<RecordId, AtomicInteger> workRuns,
      Map<String, AtomicInteger> outcomes,
      AtomicInteger done,
      AtomicLong lastErrorAt,
      Clocks clocks) {

    void call(RecordId id) {
      long start = System.nanoTime();
      try {
        callUninterruptibly(id);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      clocks.longestCall.accumulateAndGet(System.nanoTime() - start, Math::max);
    }

    private void callUninterruptibly(RecordId id) throws InterruptedException {
      boolean failedOnce = false;
      while (true) {
        ClaimOutcome outcome;
        try {
          outcome = store.claim(new ClaimRequest(id, FP, Instant.now(), lease, WINDOW));
          clocks.succeeded();
        } catch (RuntimeException e) { // the store unavailable: the client retries, same key
          failedOnce = true;
          failed();
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
          fail(id + ": " + outcome);
          return;
        }
        workRuns.get(id).incrementAndGet(); // the side effect
        TimeUnit.NANOSECONDS.sleep(WORK.toNanos());
        while (true) {
          try {
            store.complete(id, claimed.fence(), RESPONSE, Instant.now());
            clocks.succeeded();
            count(failedOnce ? "ran the work, after an error" : "ran the work");
            return;
          } catch (LeaseLostException e) {
            clocks.succeeded(); // the store answered
            count("lease lost after the work");
            failedOnce = true;
            break; // claim again: the client retries its key
          } catch (RuntimeException e) {
            failedOnce = true;
            failed();
            TimeUnit.MILLISECONDS.sleep(50);
          }
        }
      }
    }

    private void failed() {
      lastErrorAt.accumulateAndGet(System.nanoTime(), Math::max);
    }

    private void count(String outcome) {
      outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
      done.incrementAndGet();
    }
  }
}
