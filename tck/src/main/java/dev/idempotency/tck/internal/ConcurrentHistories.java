package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Rules 2.1 and 2.6 under concurrency: a few threads, each running a seeded random program on one
 * to three records through its own instance (the store or a peer), released together behind a start
 * latch. A program claims, and when it wins it performs a counted side effect and then heartbeats,
 * checkpoints, completes or releases, sometimes with a fence it held earlier; it also moves the
 * controlled clock, looks records up and reaps. The recorded history is checked against {@link
 * HistoryInvariants} and, when it is small, against the {@link ReferenceModel} by a {@link
 * Linearizability} search.
 *
 * <p>The seed fixes every program's choices, not the interleaving the scheduler picks, so replaying
 * a seed replays the programs and usually, not always, the failure.
 */
public final class ConcurrentHistories {
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration WINDOW = Duration.ofSeconds(60);
  private static final Duration RETENTION = Duration.ofSeconds(90);
  private static final Duration[] MOVES = {
    Duration.ofMillis(1),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofSeconds(61)
  };

  private final List<KeyStore> stores;
  private final TckClock clock;
  private final Timing timing;
  private final Verifier verifier;

  /** A runner over {@code stores} (the store first, then its peers). */
  public ConcurrentHistories(
      List<KeyStore> stores, TckClock clock, Timing timing, Verifier verifier) {
    this.stores = List.copyOf(stores);
    this.clock = clock;
    this.timing = timing;
    this.verifier = verifier;
  }

  /**
   * Runs and checks the history of {@code seed}. A {@code small} history (2 threads x 3-4 calls or
   * 3 threads x 2 calls, on one or two records) is also searched for a linearization; a large one
   * (4 threads x 10-15 calls, one to three records) is checked by the invariants only.
   */
  public void run(long seed, boolean small) {
    SplittableRandom rnd = new SplittableRandom(seed);
    String scope = "conc-" + Long.toUnsignedString(seed, 36);
    int keyCount = small ? 1 + rnd.nextInt(2) : 1 + rnd.nextInt(3);
    List<RecordId> ids = new ArrayList<>();
    for (int i = 1; i <= keyCount; i++) {
      ids.add(Samples.id(scope, "k" + i));
    }
    int threads = small ? 2 + rnd.nextInt(2) : 4;
    int calls = small ? (threads == 2 ? 3 + rnd.nextInt(2) : 2) : 10 + rnd.nextInt(6);
    History history = new History(seed, clock.instant());
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Throwable> harnessError = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      SplittableRandom own = rnd.split();
      int thread = t;
      Thread worker =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  if (start.await(30, TimeUnit.SECONDS)) {
                    program(thread, own, calls, ids, history);
                  }
                } catch (Throwable e) {
                  harnessError.compareAndSet(null, e);
                }
              },
              "tck-history-" + seed + "-T" + t);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
    try {
      ready.await(30, TimeUnit.SECONDS);
      start.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      for (Thread w : workers) {
        w.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (w.isAlive()) {
          throw verifier.violation(
              Rule.R2_1,
              "a concurrent history did not finish within 60 s: "
                  + w.getName()
                  + " is stuck (a deadlock or a lost wake-up in the store?)\n"
                  + history.print(),
              null,
              seed);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running a history", e);
    }
    if (harnessError.get() != null) {
      throw new IllegalStateException(
          "the TCK's history harness failed (a TCK bug)\n" + history.print(), harnessError.get());
    }
    for (History.Event e : history.calls()) {
      if (e.callResult() instanceof Result.Threw t) {
        throw verifier.violation(
            Rule.R2_1,
            "a call threw an exception no rule allows: "
                + e.call().describe(history.base())
                + " threw "
                + t.error()
                + "\n"
                + history.print(),
            t.error(),
            seed);
      }
    }
    HistoryInvariants.check(history, ids, verifier);
    if (small) {
      Linearizability.check(
          history, ids, new ModelJudge(new ReferenceModel(clock.isControlled())), verifier);
    }
    if (clock.isControlled()) {
      drain(history, ids, seed);
    }
  }

  private void program(
      int thread, SplittableRandom rnd, int calls, List<RecordId> ids, History history) {
    int via = thread % stores.size();
    KeyStore store = stores.get(via);
    Fingerprint[] fps = {Samples.fingerprint("PUT /x {1}"), Samples.fingerprint("PUT /x {2}")};
    Map<RecordId, FenceToken> owned = new HashMap<>();
    Map<RecordId, List<FenceToken>> held = new HashMap<>();
    Duration lease = clock.isControlled() ? LEASE : timing.stableLease();
    Duration window = clock.isControlled() ? WINDOW : timing.stableWindow();
    Duration retention = clock.isControlled() ? RETENTION : timing.stableRetention();
    int done = 0;
    while (done < calls) {
      RecordId id = ids.get(rnd.nextInt(ids.size()));
      Instant now = clock.instant();
      int dice = rnd.nextInt(100);
      if (clock.isControlled() && dice < 10) {
        Duration d = MOVES[rnd.nextInt(MOVES.length)];
        clock.advance(d);
        history.note(thread, "clock +" + d);
        continue;
      }
      Op op;
      FenceToken fence = owned.get(id);
      List<FenceToken> mine = held.getOrDefault(id, List.of());
      if (fence == null && !mine.isEmpty() && dice < 25) {
        fence = mine.get(rnd.nextInt(mine.size()));
      }
      if (dice < 15) {
        op = new Op.DeleteExpired(via, now, retention, 100);
      } else if (dice < 20) {
        op = new Op.Lookup(via, id);
      } else if (fence != null && dice < 90) {
        int which = rnd.nextInt(100);
        String label = id + "|" + fence + "|T" + thread + "#" + done;
        if (which < 15) {
          op = new Op.Heartbeat(via, id, fence, now, lease);
        } else if (which < 30) {
          op =
              new Op.Checkpoint(
                  via, id, fence, Samples.point("T" + thread + "-" + done), now, lease);
        } else if (which < 80) {
          op = new Op.Complete(via, id, fence, Samples.response(label), now);
        } else {
          op = new Op.Release(via, id, fence, now);
        }
      } else {
        op = new Op.Claim(via, id, fps[rnd.nextInt(5) == 0 ? 1 : 0], now, lease, window);
      }
      History.Event e = history.record(thread, op, store);
      done++;
      if (e.callResult() instanceof Result.Outcome o
          && o.outcome() instanceof ClaimOutcome.Claimed c) {
        owned.put(
            id, c.fence()); // the side effect of this ownership is the later complete, counted by
        // the invariants
        held.computeIfAbsent(id, k -> new ArrayList<>()).add(c.fence());
      } else if (op instanceof Op.Complete
          || op instanceof Op.Release
          || e.callResult() instanceof Result.Lost) {
        owned.remove(id);
      }
    }
  }

  private void drain(History history, List<RecordId> ids, long seed) {
    Instant now = clock.advance(Duration.ofDays(30));
    history.note(-1, "clock moves 30 days on; the reaper drains");
    int rounds = 0;
    while (stores.get(0).deleteExpired(now, RETENTION, 100) == 100 && ++rounds < 100) {
      // the reaper's loop: again while a full batch came back
    }
    for (RecordId id : ids) {
      if (stores.get(0).lookup(id).isPresent()) {
        throw verifier.violation(
            Rule.R7_3,
            "30 days past every lease and completion, the reaper's deleteExpired"
                + " left "
                + id
                + ": "
                + Describe.snapshot(stores.get(0).lookup(id))
                + "\n"
                + history.print(),
            null,
            seed);
      }
    }
  }
}
