package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The invariants every concurrent history must keep, whatever the interleaving (rule 2.6 and the
 * rules each invariant stems from). They need no model, so they scale to histories too long for a
 * linearizability search. Per record:
 *
 * <ol>
 *   <li>no two claims return the same fence: at most one owner per fence (3.1);
 *   <li>of two winning claims where one returned before the other began, the later has the larger
 *       fence (3.1);
 *   <li>a fenced write succeeds only with the then-current fence: never after a claim with a larger
 *       fence had returned, never after a complete or release with the same fence had returned,
 *       never with a fence no claim issued (3.2, 5.2, 3.4);
 *   <li>every Completed replays a response a successful complete stored, never before that complete
 *       began, and once a generation's response was seen, no older generation's response is seen
 *       again (5.1, 5.2);
 *   <li>one completion per generation: between two successful completes there is a fresh (not
 *       takeover) claim, so every completed generation committed exactly one side effect (2.6).
 * </ol>
 */
final class HistoryInvariants {
  private HistoryInvariants() {}

  static void check(History history, List<RecordId> ids, Verifier verifier) {
    for (RecordId id : ids) {
      List<History.Event> claims = new ArrayList<>();
      List<History.Event> writes = new ArrayList<>();
      List<History.Event> completes = new ArrayList<>();
      List<History.Event> replays = new ArrayList<>();
      for (History.Event e : history.calls()) {
        if (!id.equals(e.call().id())) {
          continue;
        }
        if (e.callResult() instanceof Result.Outcome o) {
          if (o.outcome() instanceof ClaimOutcome.Claimed) {
            claims.add(e);
          } else if (o.outcome() instanceof ClaimOutcome.Completed) {
            replays.add(e);
          }
        } else if (e.callResult() instanceof Result.Ok) {
          writes.add(e);
          if (e.call() instanceof Op.Complete) {
            completes.add(e);
          }
        }
      }
      checkFences(history, id, claims, verifier);
      checkWrites(history, id, claims, writes, verifier);
      checkReplays(history, id, completes, replays, verifier);
      checkGenerations(history, id, claims, completes, verifier);
    }
  }

  private static FenceToken fenceOf(History.Event claim) {
    return ((ClaimOutcome.Claimed) ((Result.Outcome) claim.callResult()).outcome()).fence();
  }

  private static boolean isTakeover(History.Event claim) {
    return ((ClaimOutcome.Claimed) ((Result.Outcome) claim.callResult()).outcome()).takeover();
  }

  private static FenceToken writeFence(Op op) {
    if (op instanceof Op.Heartbeat h) {
      return h.fence();
    } else if (op instanceof Op.Checkpoint c) {
      return c.fence();
    } else if (op instanceof Op.Complete c) {
      return c.fence();
    } else if (op instanceof Op.Release r) {
      return r.fence();
    }
    throw new IllegalArgumentException("not a fenced write: " + op);
  }

  private static void checkFences(History h, RecordId id, List<History.Event> claims, Verifier v) {
    for (History.Event a : claims) {
      for (History.Event b : claims) {
        // every call has its own invoke tick: the same tick is the same claim
        if (a.invoke() != b.invoke() && fenceOf(a).equals(fenceOf(b))) {
          throw fail(
              v,
              h,
              Rule.R3_1,
              "two claims of "
                  + id
                  + " both won with "
                  + fenceOf(a)
                  + ": two owners hold the same fence");
        }
        if (a.precedes(b) && !fenceOf(b).isNewerThan(fenceOf(a))) {
          throw fail(
              v,
              h,
              Rule.R3_1,
              "a claim of "
                  + id
                  + " won with "
                  + fenceOf(b)
                  + " after an earlier claim"
                  + " (which returned before it began) had won with "
                  + fenceOf(a));
        }
      }
    }
  }

  private static void checkWrites(
      History h, RecordId id, List<History.Event> claims, List<History.Event> writes, Verifier v) {
    for (History.Event w : writes) {
      FenceToken f = writeFence(w.call());
      boolean issued = false;
      for (History.Event c : claims) {
        if (fenceOf(c).equals(f) && c.invoke() < w.response()) {
          issued = true;
        }
        if (fenceOf(c).isNewerThan(f) && c.precedes(w)) {
          throw fail(
              v,
              h,
              Rule.R3_2,
              "a "
                  + name(w.call())
                  + " of "
                  + id
                  + " with "
                  + f
                  + " succeeded although a"
                  + " claim had already won "
                  + fenceOf(c)
                  + " before the write began");
        }
      }
      if (!issued) {
        throw fail(
            v,
            h,
            Rule.R3_4,
            "a "
                + name(w.call())
                + " of "
                + id
                + " with "
                + f
                + " succeeded, but no claim issued that fence");
      }
      for (History.Event end : writes) {
        if (end.invoke() != w.invoke()
            && end.precedes(w)
            && writeFence(end.call()).equals(f)
            && (end.call() instanceof Op.Complete || end.call() instanceof Op.Release)) {
          throw fail(
              v,
              h,
              end.call() instanceof Op.Complete ? Rule.R5_2 : Rule.R3_4,
              "a "
                  + name(w.call())
                  + " of "
                  + id
                  + " with "
                  + f
                  + " succeeded after a "
                  + name(end.call())
                  + " with the same fence had returned");
        }
      }
    }
  }

  private static void checkReplays(
      History h,
      RecordId id,
      List<History.Event> completes,
      List<History.Event> replays,
      Verifier v) {
    Map<StoredResponse, History.Event> byResponse = new HashMap<>();
    for (History.Event c : completes) {
      byResponse.put(((Op.Complete) c.call()).response(), c);
    }
    Map<History.Event, History.Event> source =
        new LinkedHashMap<>(); // each replay, in order, and its complete
    for (History.Event r : replays) {
      StoredResponse replayed =
          ((ClaimOutcome.Completed) ((Result.Outcome) r.callResult()).outcome()).response();
      History.Event c = byResponse.get(replayed);
      if (c == null || !Samples.identical(replayed, ((Op.Complete) c.call()).response())) {
        throw fail(
            v,
            h,
            Rule.R5_1,
            "a claim of "
                + id
                + " replayed "
                + Describe.response(replayed)
                + ", which no successful complete stored byte for byte");
      }
      if (r.precedes(c)) {
        throw fail(
            v, h, Rule.R2_1, "a claim of " + id + " replayed a response before its complete began");
      }
      source.put(r, c);
    }
    for (Map.Entry<History.Event, History.Event> replayA : source.entrySet()) {
      for (Map.Entry<History.Event, History.Event> replayB : source.entrySet()) {
        History.Event a = replayA.getKey();
        History.Event b = replayB.getKey();
        FenceToken fa = ((Op.Complete) replayA.getValue().call()).fence();
        FenceToken fb = ((Op.Complete) replayB.getValue().call()).fence();
        if (a.precedes(b) && fa.isNewerThan(fb)) {
          throw fail(
              v,
              h,
              Rule.R5_2,
              "a claim of "
                  + id
                  + " replayed the response completed with "
                  + fb
                  + " after an earlier claim had replayed the newer one completed with "
                  + fa);
        }
      }
    }
  }

  private static void checkGenerations(
      History h,
      RecordId id,
      List<History.Event> claims,
      List<History.Event> completes,
      Verifier v) {
    List<History.Event> sorted = new ArrayList<>(completes);
    sorted.sort(Comparator.comparingLong(e -> ((Op.Complete) e.call()).fence().value()));
    for (int i = 1; i < sorted.size(); i++) {
      FenceToken f1 = ((Op.Complete) sorted.get(i - 1).call()).fence();
      FenceToken f2 = ((Op.Complete) sorted.get(i).call()).fence();
      if (f1.equals(f2)) {
        throw fail(v, h, Rule.R5_2, "two completes of " + id + " with " + f1 + " both succeeded");
      }
      boolean fresh = false;
      for (History.Event c : claims) {
        FenceToken f = fenceOf(c);
        fresh |= !isTakeover(c) && f.isNewerThan(f1) && !f.isNewerThan(f2);
      }
      if (!fresh) {
        throw fail(
            v,
            h,
            Rule.R2_6,
            "the completes of "
                + id
                + " with "
                + f1
                + " and with "
                + f2
                + " both"
                + " succeeded without a fresh claim between them: two committed side effects in one generation");
      }
    }
  }

  private static String name(Op op) {
    return op.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
  }

  private static AssertionError fail(Verifier v, History h, Rule rule, String detail) {
    return v.violation(
        rule, "concurrent history invariant: " + detail + "\n" + h.print(), null, h.seed());
  }
}
