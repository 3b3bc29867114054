package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * {@code gates}: the design's gates, black-box, against a running API, for every operation that
 * takes a key (in a header or in the body). Per operation, in turn: the replay (whose first request
 * must be accepted: every other gate needs one the server takes), the same key with another
 * request, N at once with one key, the answer while one still runs, keys to refuse, and the window.
 * Each result names the anti-pattern its failure reveals.
 */
public final class LiveGates {
  /** One operation's gates, or why it was not gated. */
  public record OperationResult(
      OperationReport report, List<GateResult> gates, @Nullable String skipped) {}

  /** The settings of one run. */
  public record Settings(
      int concurrency,
      @Nullable Duration window,
      Set<Gate> gates,
      ApiOrigin origin,
      long timeoutMillis) {
    /** Validates the settings. */
    public Settings {
      if (concurrency < 2 || concurrency > ConcurrentGates.MAX_CONCURRENCY) {
        throw new IllegalArgumentException(
            "--concurrency is 2 to " + ConcurrentGates.MAX_CONCURRENCY + ", not " + concurrency);
      }
      gates = gates.isEmpty() ? EnumSet.allOf(Gate.class) : EnumSet.copyOf(gates);
    }
  }

  /** Waits out a stretch of the window: real time for a live API, a moved clock in a test. */
  public interface Waiter {
    /** Returns once {@code d} has passed for the server under test. */
    void waitFor(Duration d) throws InterruptedException;
  }

  private final HttpTarget target;
  private final Settings settings;
  private final Waiter waiter;

  /**
   * Gates sending to {@code target}.
   *
   * @param waiter how the window gate waits: real time ({@code Thread.sleep}) against a live API
   */
  public LiveGates(HttpTarget target, Settings settings, Waiter waiter) {
    this.target = target;
    this.settings = settings;
    this.waiter = waiter;
  }

  /** Gates every keyed operation of {@code reports}. */
  public List<OperationResult> run(
      List<DocumentReader.Document> documents,
      List<OperationReport> reports,
      Map<String, RequestPlanner.Planned> fromFile)
      throws InterruptedException {
    List<OperationResult> results = new ArrayList<>();
    for (OperationReport report : reports) {
      KeyDeclaration key = report.key();
      if (key == null) {
        continue;
      }
      RequestPlanner.Plan plan = ReplayVerifier.plan(documents, report, fromFile);
      RequestPlanner.Planned planned = plan.request();
      if (planned == null) {
        results.add(new OperationResult(report, List.of(), plan.skipReason()));
        continue;
      }
      results.add(gate(new GateContext(target, report, key, planned, settings.origin())));
    }
    return results;
  }

  /** One gate's run, which may fail to send. */
  private interface Run {
    GateResult run()
        throws IOException,
            InterruptedException,
            TimeoutException,
            KeyedRequests.KeyPlacementException;
  }

  private OperationResult gate(GateContext c) throws InterruptedException {
    List<GateResult> results = new ArrayList<>();
    try {
      // the replay runs first whatever was asked: it proves the request is one the server takes
      SequentialGates.Replayed replayed;
      try {
        replayed = SequentialGates.replay(c);
      } catch (IOException | TimeoutException e) {
        results.add(GateResult.of(Gate.REPLAY, GateResult.Status.ERROR, String.valueOf(e)));
        return new OperationResult(c.report, results, null);
      }
      Answer first = replayed.first();
      if (settings.gates().contains(Gate.REPLAY) || first == null) {
        results.add(replayed.result());
      }
      if (first == null) {
        return new OperationResult(c.report, results, null);
      }
      for (Gate g : settings.gates()) {
        @Nullable Run run =
            switch (g) {
              case REPLAY -> null;
              case MISMATCH -> () -> SequentialGates.mismatch(c, first, replayed.key());
              case CONCURRENT ->
                  () ->
                      ConcurrentGates.concurrent(
                          c, settings.concurrency(), settings.timeoutMillis());
              case IN_FLIGHT -> () -> ConcurrentGates.inFlight(c, settings.timeoutMillis());
              case KEY_SYNTAX -> () -> SequentialGates.keySyntax(c, settings.origin());
              case WINDOW ->
                  () -> SequentialGates.window(c, settings.window(), settings.origin(), waiter);
            };
        if (run == null) {
          continue;
        }
        try {
          results.add(run.run());
        } catch (IOException | TimeoutException e) {
          results.add(GateResult.of(g, GateResult.Status.ERROR, String.valueOf(e)));
        }
      }
      return new OperationResult(c.report, results, null);
    } catch (KeyedRequests.KeyPlacementException e) {
      return new OperationResult(c.report, results, e.getMessage());
    }
  }
}
