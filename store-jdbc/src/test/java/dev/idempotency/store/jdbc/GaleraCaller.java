package dev.idempotency.store.jdbc;

import static org.junit.jupiter.api.Assertions.fail;

import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client of one Galera node calling with one key until it has the stored result, in either of the
 * store's modes, and what all such clients of a run met: the outcomes, the errors by kind, the
 * work's runs per key, the last time a call failed, the longest single call of the store.
 *
 * <p>Two commits: {@code claim}, the work (counted in memory: its side effect), {@code complete}; a
 * caller that ran the work retries its {@code complete} with its fence until the store takes it or
 * says the lease is lost (then it claims again). One transaction: {@code claimAndComplete}, the
 * work inserting one row into {@link #WORK_TABLE} in the claim's transaction: the committed rows
 * per key are its side effects (the work's calls, counted in memory too, include runs rolled back
 * by a certification failure).
 */
final class GaleraCaller {
  static final String WORK_TABLE = "galera_work_done";
  private static final Duration WORK = Duration.ofMillis(10);

  /** Longer than the outage: a caller that ran the work keeps its lease while it retries. */
  static final Duration LEASE = Duration.ofSeconds(10);

  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Fingerprint FP = Fingerprint.of("req".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse RESPONSE =
      StoredResponse.of(200, "ok".getBytes(StandardCharsets.UTF_8));

  final boolean oneTransaction;
  final Map<RecordId, AtomicInteger> workCalls = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();

  /** Failures that are none of the store's documented outcomes for a client to retry. */
  final List<Throwable> unexpected = new CopyOnWriteArrayList<>();

  final AtomicLong lastErrorAt = new AtomicLong();

  /** The last failure of the work's own statement on this thread, to tell it from the store's. */
  private final ThreadLocal<SQLException> workFailure = new ThreadLocal<>();

  /** The longest a single call of the store took, in nanoseconds: a stall shows here. */
  final AtomicLong longestStoreCall = new AtomicLong();

  GaleraCaller(boolean oneTransaction) {
    this.oneTransaction = oneTransaction;
  }

  /** Calls with {@code id} through {@code store} until the result is stored. */
  void call(JdbcKeyStore store, RecordId id) {
    try {
      if (oneTransaction) {
        callInOneTransaction(store, id);
      } else {
        callWithTwoCommits(store, id);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void callWithTwoCommits(JdbcKeyStore store, RecordId id) throws InterruptedException {
    boolean failedOnce = false;
    while (true) {
      ClaimOutcome outcome;
      try {
        long start = System.nanoTime();
        try {
          outcome = store.claim(new ClaimRequest(id, FP, Instant.now(), LEASE, WINDOW));
        } finally {
          timed(start);
        }
      } catch (RuntimeException e) { // the store unavailable: the client retries, same key
        failedOnce = true;
        failed(e);
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
      workCalls.get(id).incrementAndGet(); // the side effect
      TimeUnit.NANOSECONDS.sleep(WORK.toNanos());
      while (true) {
        long start = System.nanoTime();
        try {
          try {
            store.complete(id, claimed.fence(), RESPONSE, Instant.now());
          } finally {
            timed(start);
          }
          count(failedOnce ? "ran the work, after an error" : "ran the work");
          return;
        } catch (LeaseLostException e) {
          count("lease lost after the work");
          failedOnce = true;
          break; // claim again: the client retries its key
        } catch (RuntimeException e) {
          failedOnce = true;
          failed(e);
        }
      }
    }
  }

  private void callInOneTransaction(JdbcKeyStore store, RecordId id) throws InterruptedException {
    boolean failedOnce = false;
    while (true) {
      OneTransactionOutcome outcome;
      long start = System.nanoTime();
      try {
        outcome =
            store.claimAndComplete(
                new ClaimRequest(id, FP, Instant.now(), LEASE, WINDOW),
                (c, claim) -> {
                  workCalls.get(id).incrementAndGet();
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO " + WORK_TABLE + " (k) VALUES (?)")) {
                    ps.setString(1, id.key().value());
                    ps.executeUpdate(); // the side effect, committed with the claim or not at all
                  } catch (SQLException e) {
                    workFailure.set(
                        e); // rethrown as it is: the store runs a deadlocked attempt again
                    throw e;
                  }
                  TimeUnit.NANOSECONDS.sleep(WORK.toNanos());
                  return RESPONSE;
                });
      } catch (Exception e) {
        timed(start);
        if (e instanceof InterruptedException ie) {
          throw ie;
        }
        failedOnce = true;
        failed(e, e == workFailure.get());
        continue;
      } finally {
        workFailure.remove();
      }
      timed(start);
      if (outcome instanceof OneTransactionOutcome.Committed) {
        count(failedOnce ? "ran the work, after an error" : "ran the work");
        return;
      }
      if (outcome instanceof OneTransactionOutcome.NotRun notRun
          && notRun.outcome() instanceof ClaimOutcome.Completed) {
        count(failedOnce ? "replayed after an error" : "replayed");
        return;
      }
      if (outcome instanceof OneTransactionOutcome.NotRun notRun
          && notRun.outcome() instanceof ClaimOutcome.InFlight) {
        TimeUnit.MILLISECONDS.sleep(20);
        continue;
      }
      fail(id + ": " + outcome);
      return;
    }
  }

  /**
   * Counts a failed call by its kind and the database's error code, and keeps it if it is neither
   * the store's answer for "try again" ({@link StoreUnavailableException}) nor the work's own
   * failure, which the store passes on; pauses before the retry.
   */
  private void failed(Exception e) throws InterruptedException {
    failed(e, false);
  }

  /**
   * @param thrownByTheWork whether {@code e} is the work's own statement failing (its connection
   *     lost with the node, say), which the store rolls back and passes on unchanged
   */
  private void failed(Exception e, boolean thrownByTheWork) throws InterruptedException {
    lastErrorAt.accumulateAndGet(System.nanoTime(), Math::max);
    String kind = (thrownByTheWork ? "the work's " : "") + kind(e);
    errors.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
    if (!(e instanceof StoreUnavailableException) && !thrownByTheWork) {
      unexpected.add(e);
    }
    TimeUnit.MILLISECONDS.sleep(50);
  }

  private static String kind(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        return e.getClass().getSimpleName() + " (error " + s.getErrorCode() + ")";
      }
    }
    return e.getClass().getSimpleName();
  }

  private void timed(long start) {
    longestStoreCall.accumulateAndGet(System.nanoTime() - start, Math::max);
  }

  private void count(String outcome) {
    outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
  }
}
