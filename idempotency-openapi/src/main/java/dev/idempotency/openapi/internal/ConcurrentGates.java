package dev.idempotency.openapi.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The gates that send requests at once: N identical requests with one key (exactly one side
 * effect), and two while one still runs (the other answered in flight, or made to wait for it and
 * given its answer; never a second run). Each request has its own thread and connection, released
 * together.
 */
final class ConcurrentGates {
  /** The most requests sent at once. */
  static final int MAX_CONCURRENCY = 64;

  /**
   * How long after the first request of the in-flight gate the second leaves: long enough for a
   * server to have claimed the key of the first (which the requests file makes slow), so that a
   * claim that is merely not atomic (check-then-insert, whose window is short) is not taken for one
   * with no in-flight state at all.
   */
  static final long IN_FLIGHT_STAGGER_MILLIS = 200;

  /** The statuses that say "still running, come back": what an in-flight answer may be. */
  private static final Set<Integer> IN_FLIGHT_STATUSES = Set.of(409, 423, 425, 429, 503);

  /** One request sent at once with the others: when its answer came, and the answer. */
  private record Sent(long doneAt, @Nullable Answer answer, @Nullable Exception error) {}

  private ConcurrentGates() {}

  /**
   * N identical requests with one fresh key, released together: exactly one may run. Counted by the
   * probe when it counts, else from the answers (each different successful answer is a run).
   */
  static GateResult concurrent(GateContext c, int n, long timeoutMillis)
      throws IOException,
          InterruptedException,
          TimeoutException,
          KeyedRequests.KeyPlacementException {
    Gate g = Gate.CONCURRENT;
    Outgoing r = c.keyed(c.freshKey(g));
    Long c0 = c.effects.count();
    List<Sent> sent = all(c, List.of(r), n, 0, timeoutMillis);
    Long c1 = c.effects.count();
    Map<String, Integer> answers = new TreeMap<>();
    Set<ByteBuffer> distinctRuns = new HashSet<>();
    int errors = 0;
    for (Sent s : sent) {
      Answer a = s.answer();
      if (a == null) {
        errors++;
        answers.merge("error " + s.error(), 1, Integer::sum);
        continue;
      }
      boolean replay = c.markedReplay(a);
      answers.merge(a.status() + (replay ? " replayed" : ""), 1, Integer::sum);
      if (a.success() && !replay) {
        distinctRuns.add(ByteBuffer.wrap(a.body()));
      }
    }
    String seen = n + " requests with one key at once: " + histogram(answers);
    if (errors == n) {
      return GateResult.of(g, GateResult.Status.ERROR, seen);
    }
    Long delta = c.effects.delta(c0, c1);
    boolean counted = delta != null;
    long runs = delta != null ? delta : distinctRuns.size();
    String how =
        counted
            ? "; probe " + c.effects.name() + ": " + c0 + " → " + c1
            : "; runs counted from the answers (" + c.effects.whyNot() + ")";
    if (runs > 1) {
      return GateResult.antiPattern(g, seen + "; " + runs + " of them ran" + how);
    }
    if (runs == 0) {
      return GateResult.of(g, GateResult.Status.ERROR, seen + "; none ran" + how);
    }
    if (counted && distinctRuns.size() > 1) {
      return GateResult.fail(
          g,
          seen
              + "; one side effect, but "
              + distinctRuns.size()
              + " different successful answers: the duplicates did not get the first answer"
              + how);
    }
    return GateResult.pass(g, seen + "; one ran" + how);
  }

  /**
   * Two identical requests with one fresh key, released together and made slow where the requests
   * file says how: the one answered first, while the other still ran, must be an in-flight answer
   * (409, 425, 429, 503), or, when the server makes it wait, the other's answer; both running is a
   * second run.
   */
  static GateResult inFlight(GateContext c, long timeoutMillis)
      throws IOException,
          InterruptedException,
          TimeoutException,
          KeyedRequests.KeyPlacementException {
    Gate g = Gate.IN_FLIGHT;
    RequestPlanner.Planned p = c.planned;
    boolean slow = p.slowBody() != null || !p.slowHeaders().isEmpty();
    String key = c.freshKey(g);
    Outgoing r = p.slowBody() != null ? c.keyedWithBody(p.slowBody(), key) : c.keyed(key);
    for (Map.Entry<String, String> h : p.slowHeaders().entrySet()) {
      r = r.withHeader(h.getKey(), h.getValue());
    }
    Long c0 = c.effects.count();
    List<Sent> sent = all(c, List.of(r, r), 2, IN_FLIGHT_STAGGER_MILLIS, timeoutMillis);
    Long c1 = c.effects.count();
    Sent a = sent.get(0);
    Sent b = sent.get(1);
    Answer aa = a.answer();
    Answer ba = b.answer();
    if (aa == null || ba == null) {
      return GateResult.of(
          g, GateResult.Status.ERROR, "a request failed: " + (aa == null ? a.error() : b.error()));
    }
    boolean aFirst = a.doneAt() <= b.doneAt();
    Answer early = aFirst ? aa : ba;
    Answer late = aFirst ? ba : aa;
    Long delta = c.effects.delta(c0, c1);
    String how =
        delta != null
            ? "; probe " + c.effects.name() + ": " + c0 + " → " + c1
            : "; side effects not counted (" + c.effects.whyNot() + ")";
    if (delta != null && delta > 1) {
      return GateResult.antiPattern(
          g, "both ran: " + delta + " side effects" + how + "; answers " + early + ", " + late);
    }
    if (early.success() && late.success()) {
      if (!late.sameBytes(early)) {
        return GateResult.antiPattern(
            g,
            "both ran: "
                + GateContext.brief(early)
                + " and then "
                + GateContext.brief(late)
                + ", while one was still running"
                + how);
      }
      if (!slow) {
        return GateResult.of(
            g,
            GateResult.Status.INCONCLUSIVE,
            "both got the same answer ("
                + early
                + "): the second may have come after the first had finished; make the request slow"
                + " (\"slowBody\" or \"slowHeaders\" in --requests) to see the answer in flight");
      }
      return GateResult.pass(
          g, "one ran; the other waited for it and got its answer (" + early + ")" + how);
    }
    Answer inFlight = early.success() ? late : early;
    Answer run = early.success() ? early : late;
    if (!run.success() || !IN_FLIGHT_STATUSES.contains(inFlight.status())) {
      return GateResult.of(
          g,
          GateResult.Status.ERROR,
          "answered " + GateContext.brief(early) + " and " + GateContext.brief(late) + how);
    }
    String retryAfter = inFlight.header("Retry-After");
    return GateResult.pass(
        g,
        "one ran ("
            + run
            + "); the other was answered in flight: "
            + GateContext.brief(inFlight)
            + (retryAfter == null ? " (no Retry-After)" : " with Retry-After: " + retryAfter)
            + how);
  }

  /**
   * Sends {@code n} requests ({@code requests} in turn) at once: every thread waits at one latch,
   * so they leave together, each on its own connection; all but the first {@code staggerMillis}
   * later, when that is not 0.
   */
  private static List<Sent> all(
      GateContext c, List<Outgoing> requests, int n, long staggerMillis, long timeoutMillis)
      throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(n, ConcurrentGates::daemon);
    try {
      CountDownLatch ready = new CountDownLatch(n);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Sent>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Outgoing r = requests.get(i % requests.size());
        long stagger = i == 0 ? 0 : staggerMillis;
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  if (stagger > 0) {
                    Thread.sleep(stagger); // a black-box server offers no signal to wait for
                  }
                  try {
                    Answer answer = c.send(r);
                    return new Sent(System.nanoTime(), answer, null);
                  } catch (IOException | TimeoutException e) {
                    return new Sent(System.nanoTime(), null, e);
                  }
                }));
      }
      if (!ready.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            n + " threads did not start within " + timeoutMillis + " ms");
      }
      go.countDown();
      List<Sent> sent = new ArrayList<>();
      for (Future<Sent> f : futures) {
        try {
          // each request is bounded by the target's timeout; this is the backstop
          sent.add(f.get(2 * timeoutMillis, TimeUnit.MILLISECONDS));
        } catch (ExecutionException | TimeoutException e) {
          sent.add(new Sent(Long.MAX_VALUE, null, e));
        }
      }
      return sent;
    } finally {
      pool.shutdownNow();
    }
  }

  private static String histogram(Map<String, Integer> answers) {
    List<String> parts = new ArrayList<>();
    answers.forEach((answer, count) -> parts.add(count + " × " + answer));
    return String.join(", ", parts);
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "openapi-gates");
    t.setDaemon(true);
    return t;
  }
}
