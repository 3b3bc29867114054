package dev.idempotency.tck.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The record of one generated history: every call with its result and the logical times of its
 * invocation and response (ticks of one shared counter, so "a returned before b was invoked" is
 * exact), plus notes such as clock moves. Printed in full when a history fails. Thread-safe.
 */
public final class History {

  /**
   * One call by {@code thread}, with its {@code op} and {@code result} and no {@code note}; or a
   * note, with neither {@code op} nor {@code result}.
   */
  public record Event(
      int thread,
      @Nullable Op op,
      @Nullable Result result,
      long invoke,
      long response,
      @Nullable String note) {
    /** Whether this event happened entirely before {@code other} began. */
    public boolean precedes(Event other) {
      return response < other.invoke;
    }

    /** The call of an event that is one, as every event of {@link History#calls()} is. */
    public Op call() {
      return Objects.requireNonNull(
          op, "a note is not a call, and History.calls() leaves notes out");
    }

    /** What the call of an event that is one returned or threw. */
    public Result callResult() {
      return Objects.requireNonNull(
          result, "every call has a result, and History.calls() leaves notes out");
    }
  }

  private final long seed;
  private final Instant base;
  private final AtomicLong ticks = new AtomicLong();
  private final List<Event> events = new ArrayList<>();

  /** A history generated from {@code seed}, whose times are printed relative to {@code base}. */
  public History(long seed, Instant base) {
    this.seed = seed;
    this.base = base;
  }

  /** The seed the history was generated from. */
  public long seed() {
    return seed;
  }

  /** The time the printed history's times are relative to. */
  public Instant base() {
    return base;
  }

  /** {@code t} relative to the history's start, as the printed history shows times. */
  public String relative(Instant t) {
    return Describe.relative(t, base);
  }

  /** The next logical time. */
  public long tick() {
    return ticks.getAndIncrement();
  }

  /**
   * Runs {@code op} against {@code store}, records it with its invoke and response ticks, and
   * returns it.
   */
  public Event record(int thread, Op op, dev.idempotency.spi.KeyStore store) {
    long invoke = tick();
    Result result = op.run(store);
    long response = tick();
    Event e = new Event(thread, op, result, invoke, response, null);
    add(e);
    return e;
  }

  /** Records a note (a clock move, a drain) by {@code thread}. */
  public void note(int thread, String note) {
    long t = tick();
    add(new Event(thread, null, null, t, t, note));
  }

  /** Adds an event. */
  public synchronized void add(Event e) {
    events.add(e);
  }

  /** The events so far, ordered by invocation. */
  public synchronized List<Event> events() {
    List<Event> copy = new ArrayList<>(events);
    copy.sort(Comparator.comparingLong(Event::invoke));
    return copy;
  }

  /** The calls so far (no notes), ordered by invocation. */
  public List<Event> calls() {
    List<Event> calls = new ArrayList<>();
    for (Event e : events()) {
      if (e.op() != null) {
        calls.add(e);
      }
    }
    return calls;
  }

  /** The history, one event per line: {@code [invoke..response] T<thread> call → result}. */
  public String print() {
    StringBuilder sb =
        new StringBuilder("History (seed=" + seed + ", times relative to t=" + base + "):");
    for (Event e : events()) {
      sb.append("\n  [")
          .append(e.invoke())
          .append("..")
          .append(e.response())
          .append("] T")
          .append(e.thread())
          .append(' ');
      Op op = e.op();
      if (op == null) {
        sb.append("-- ").append(e.note());
      } else {
        sb.append(op.via() == 0 ? "" : "(peer " + op.via() + ") ")
            .append(op.describe(base))
            .append(" → ")
            .append(e.callResult().describe());
      }
    }
    return sb.toString();
  }
}
