package dev.idempotency.testing;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * A fixed sequence of faults, one per request as it arrives; the last one repeats once the script
 * runs out.
 */
public final class ScriptedFaults implements FaultPlan {
  private final Deque<Fault> script;
  private Fault last;

  /**
   * A script of {@code faults}, in order.
   *
   * @param faults one per request; at least one
   * @throws IllegalArgumentException if there is none
   */
  public ScriptedFaults(Fault... faults) {
    if (faults.length == 0) {
      throw new IllegalArgumentException("a script needs at least one fault");
    }
    script = new ArrayDeque<>(List.of(faults));
    last = faults[faults.length - 1];
  }

  @Override
  public synchronized Fault next() {
    Fault f = script.pollFirst();
    return f != null ? f : last;
  }
}
