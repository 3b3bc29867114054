package dev.idempotency.tck.internal;

import dev.idempotency.RecordId;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A Wing–Gong search for a linearization of a small concurrent history, record by record (rule 2.1
 * promises atomicity per record only; deleteExpired is projected onto each record as "deletes it if
 * it is past retention when it looks"). A linearization orders the calls so that a call that
 * returned before another began stays before it, and the {@link ModelJudge} accepts every result in
 * that order. Exponential, so only for histories of at most {@value #MAX_CALLS} calls per record.
 */
final class Linearizability {
  static final int MAX_CALLS = 10;

  private Linearizability() {}

  static void check(History history, List<RecordId> ids, ModelJudge judge, Verifier verifier) {
    for (RecordId id : ids) {
      List<History.Event> calls = new ArrayList<>();
      for (History.Event e : history.calls()) {
        if (id.equals(e.call().id()) || e.call() instanceof Op.DeleteExpired) {
          calls.add(e);
        }
      }
      if (calls.size() > MAX_CALLS) {
        continue;
      }
      Search search = new Search(judge, calls);
      if (!search.run(ReferenceModel.State.empty(), new boolean[calls.size()], 0)) {
        throw verifier.violation(
            Rule.R2_1,
            "the calls on "
                + id
                + " have no linearization: no order that respects real time is one the"
                + " sequential model allows. The longest order found broke rule "
                + (search.deepestRule == null ? "?" : search.deepestRule.id())
                + " after "
                + search.deepest
                + " calls: "
                + search.deepestWhy
                + "\n"
                + history.print(),
            null,
            history.seed());
      }
    }
  }

  private static final class Search {
    private final ModelJudge judge;
    private final List<History.Event> calls;
    int deepest = -1;
    @Nullable Rule deepestRule; // of the deepest order found, once one broke a rule
    @Nullable String deepestWhy;

    Search(ModelJudge judge, List<History.Event> calls) {
      this.judge = judge;
      this.calls = calls;
    }

    boolean run(ReferenceModel.State state, boolean[] done, int depth) {
      if (depth == calls.size()) {
        return true;
      }
      long firstResponse = Long.MAX_VALUE;
      for (int i = 0; i < calls.size(); i++) {
        if (!done[i]) {
          firstResponse = Math.min(firstResponse, calls.get(i).response());
        }
      }
      for (int i = 0; i < calls.size(); i++) {
        History.Event e = calls.get(i);
        if (done[i] || e.invoke() > firstResponse) {
          continue; // a pending call returned before e began: e cannot be next
        }
        ModelJudge.Step step = judge.apply(state, e.call(), e.callResult());
        if (!step.ok()) {
          if (depth > deepest) {
            deepest = depth;
            deepestRule = step.rule();
            deepestWhy = step.violation();
          }
          continue;
        }
        done[i] = true;
        if (run(step.after(), done, depth + 1)) {
          return true;
        }
        done[i] = false;
      }
      return false;
    }
  }
}
