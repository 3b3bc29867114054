package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Rule 2.1, sequentially: a seeded random history of single calls on a small key space (three
 * records, two of them the same key in two scopes; two fingerprints), spread over the store and its
 * peers, each result judged against the {@link ReferenceModel} as soon as it returns. With a
 * controlled clock the history also moves time, often exactly onto a lease, window or retention
 * boundary or 1 ms before it, and writes with stale, foreign and never issued fences. A failure
 * prints the seed and the history up to the failing call.
 */
public final class SequentialHistories {
  private static final Duration[] LEASES = {Duration.ofSeconds(10), Duration.ofSeconds(30)};
  private static final Duration[] WINDOWS = {Duration.ofSeconds(60), Duration.ofSeconds(150)};
  private static final Duration[] RETENTIONS = {Duration.ofSeconds(90), Duration.ofSeconds(200)};

  private final List<KeyStore> stores;
  private final TckClock clock;
  private final Timing timing;
  private final Verifier verifier;

  /** A runner over {@code stores} (the store first, then its peers). */
  public SequentialHistories(
      List<KeyStore> stores, TckClock clock, Timing timing, Verifier verifier) {
    this.stores = List.copyOf(stores);
    this.clock = clock;
    this.timing = timing;
    this.verifier = verifier;
  }

  /** Generates, runs and checks the history of {@code seed}, of about {@code length} calls. */
  public void run(long seed, int length) {
    SplittableRandom rnd = new SplittableRandom(seed);
    String scope = "seq-" + Long.toUnsignedString(seed, 36);
    List<RecordId> ids =
        List.of(Samples.id(scope, "k1"), Samples.id(scope, "k2"), Samples.id(scope + "~b", "k1"));
    Fingerprint[] fps = {Samples.fingerprint("POST /a {1}"), Samples.fingerprint("POST /a {2}")};
    boolean controlled = clock.isControlled();
    ModelJudge judge = new ModelJudge(new ReferenceModel(controlled));
    ReferenceModel.State state = ReferenceModel.State.empty();
    Map<RecordId, List<FenceToken>> issued = new HashMap<>();
    History history = new History(seed, clock.instant());
    Duration[] leases = controlled ? LEASES : new Duration[] {timing.stableLease()};
    Duration[] windows = controlled ? WINDOWS : new Duration[] {timing.stableWindow()};
    Duration[] retentions = controlled ? RETENTIONS : new Duration[] {timing.stableRetention()};

    for (int step = 0; step < length; step++) {
      int via = rnd.nextInt(stores.size());
      RecordId id = ids.get(rnd.nextInt(ids.size()));
      Instant now = clock.instant();
      int dice = rnd.nextInt(100);
      Op op;
      if (dice < 30) {
        op =
            new Op.Claim(
                via,
                id,
                fps[rnd.nextInt(4) == 0 ? 1 : 0],
                now,
                pick(rnd, leases),
                pick(rnd, windows));
      } else if (dice < 38) {
        op = new Op.Heartbeat(via, id, fence(rnd, id, issued), now, pick(rnd, leases));
      } else if (dice < 46) {
        op =
            new Op.Checkpoint(
                via, id, fence(rnd, id, issued), Samples.point("p" + step), now, pick(rnd, leases));
      } else if (dice < 60) {
        op =
            new Op.Complete(
                via, id, fence(rnd, id, issued), Samples.randomResponse(rnd, "s" + step), now);
      } else if (dice < 66) {
        op = new Op.Release(via, id, fence(rnd, id, issued), now);
      } else if (dice < 72) {
        op = new Op.Lookup(via, id);
      } else if (dice < 76) {
        op = new Op.FindAbandoned(via, now, 1 + rnd.nextInt(3));
      } else if (dice < 81) {
        op = new Op.DeleteExpired(via, now, pick(rnd, retentions), 1 + rnd.nextInt(3));
      } else if (controlled) {
        history.note(
            0, "clock moves to " + history.relative(move(rnd, state, windows, retentions)));
        continue;
      } else {
        op = new Op.Lookup(via, id);
      }
      long invoke = history.tick();
      Result result = op.run(stores.get(via));
      if (result instanceof Result.Deleted d) {
        result = new Result.Deleted(d.count(), deletedAmong(state, ids));
      }
      history.add(new History.Event(0, op, result, invoke, history.tick(), null));
      if (result instanceof Result.Outcome o && o.outcome() instanceof ClaimOutcome.Claimed c) {
        issued.computeIfAbsent(id, k -> new ArrayList<>()).add(c.fence());
      }
      ModelJudge.Step verdict = judge.apply(state, op, result);
      Rule broken = verdict.rule();
      if (broken != null) {
        throw verifier.violation(
            broken,
            "a sequential history broke the rule at its last call: "
                + verdict.violation()
                + "\nModel state before that call:"
                + state.describe()
                + "\n"
                + history.print(),
            result instanceof Result.Threw t ? t.error() : null,
            seed);
      }
      state = verdict.after();
    }
    if (controlled) {
      drain(history, state, ids, seed);
    }
  }

  /**
   * Moves the clock: a little, about a lease, a lot, or (most often) exactly onto a boundary of a
   * record or 1 ms before it. Returns the new time.
   */
  private Instant move(
      SplittableRandom rnd, ReferenceModel.State state, Duration[] windows, Duration[] retentions) {
    Instant now = clock.instant();
    int dice = rnd.nextInt(10);
    if (dice < 4) {
      List<Instant> boundaries = new ArrayList<>();
      for (RecordId id : state.ids()) {
        ReferenceModel.Rec r = state.present(id);
        if (r.state() == KeyState.IN_FLIGHT) {
          boundaries.add(r.leaseEnd());
          for (Duration ret : retentions) {
            boundaries.add(r.leaseEnd().plus(ret));
          }
        } else if (r.completedAt() != null) {
          for (Duration w : windows) {
            boundaries.add(r.completedAt().plus(w));
          }
          for (Duration ret : retentions) {
            boundaries.add(r.completedAt().plus(ret));
          }
        }
      }
      boundaries.removeIf(t -> !t.isAfter(now));
      if (!boundaries.isEmpty()) {
        Instant target = boundaries.get(rnd.nextInt(boundaries.size()));
        if (rnd.nextBoolean() && target.minusMillis(1).isAfter(now)) {
          target = target.minusMillis(1);
        }
        clock.set(target);
        return target;
      }
      return clock.advance(Duration.ofMillis(1));
    } else if (dice < 7) {
      return clock.advance(Duration.ofMillis(1 + rnd.nextInt(5000)));
    } else if (dice < 9) {
      return clock.advance(Duration.ofMillis(1 + rnd.nextInt(31_000)));
    }
    return clock.advance(Duration.ofSeconds(100 + rnd.nextInt(200)));
  }

  /**
   * A fence for a write: mostly the latest issued, else a stale one, a foreign one, or one never
   * issued.
   */
  private static FenceToken fence(
      SplittableRandom rnd, RecordId id, Map<RecordId, List<FenceToken>> issued) {
    List<FenceToken> mine = issued.getOrDefault(id, List.of());
    int dice = rnd.nextInt(100);
    if (!mine.isEmpty() && dice < 65) {
      return mine.get(mine.size() - 1);
    }
    if (!mine.isEmpty() && dice < 85) {
      return mine.get(rnd.nextInt(mine.size()));
    }
    List<FenceToken> all = new ArrayList<>();
    issued.values().forEach(all::addAll);
    if (!all.isEmpty() && dice < 95) {
      return all.get(rnd.nextInt(all.size()));
    }
    long max = all.stream().mapToLong(FenceToken::value).max().orElse(0);
    return FenceToken.of(max + 1 + rnd.nextInt(3));
  }

  /** After a deleteExpired: which of the records the model holds are gone now (by lookup). */
  private Set<RecordId> deletedAmong(ReferenceModel.State state, List<RecordId> ids) {
    Set<RecordId> gone = new HashSet<>();
    for (RecordId id : ids) {
      if (state.record(id) != null && stores.get(0).lookup(id).isEmpty()) {
        gone.add(id);
      }
    }
    return gone;
  }

  /**
   * Ends a controlled history the way the reaper would: far past every retention, deleteExpired in
   * batches of 2 while it returns 2; then none of the history's records may be left. This also
   * keeps findAbandoned and deleteExpired of the next history on the same store free of this one's
   * records.
   */
  private void drain(History history, ReferenceModel.State state, List<RecordId> ids, long seed) {
    Instant now = clock.advance(Duration.ofDays(30));
    history.note(0, "clock moves 30 days on; the reaper drains in batches of 2");
    int rounds = 0;
    int n;
    do {
      n = stores.get(0).deleteExpired(now, RETENTIONS[RETENTIONS.length - 1], 2);
      if (n < 0 || n > 2 || ++rounds > 1000) {
        throw verifier.violation(
            Rule.R7_3,
            "draining: deleteExpired(limit=2) returned "
                + n
                + " in round "
                + rounds
                + "\n"
                + history.print(),
            null,
            seed);
      }
    } while (n == 2);
    for (RecordId id : ids) {
      if (stores.get(0).lookup(id).isPresent()) {
        throw verifier.violation(
            Rule.R7_3,
            "30 days past every lease and completion, deleteExpired(limit=2)"
                + " returned "
                + n
                + " (< limit, so the reaper stops), but "
                + id
                + " is still there: "
                + Describe.snapshot(stores.get(0).lookup(id))
                + "\nModel state:"
                + state.describe()
                + "\n"
                + history.print(),
            null,
            seed);
      }
    }
  }

  private static Duration pick(SplittableRandom rnd, Duration[] choices) {
    return choices[rnd.nextInt(choices.length)];
  }
}
