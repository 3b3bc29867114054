package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.event.IdempotencyListener;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.CompletionOutageGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * What an outage gate's owners and duplicates saw, beside the gate's own counts: how each owner's
 * request ended (its response stored, not stored, or an exception), the time from the fault's
 * beginning to the first completion the owners' engine reported stored after it, and to the first
 * duplicate answered with a replay after it (the store's unavailability as the application met it,
 * which for a failover is longer than the kill itself). Thread-safe.
 */
final class GateFigures {
  static final Fingerprint FINGERPRINT = Fingerprint.of(new byte[] {4, 2});

  private final AtomicLong faultBegan = new AtomicLong();
  private final AtomicLong firstCompletion = new AtomicLong();
  private final AtomicLong firstReplay = new AtomicLong();
  private final Map<String, AtomicInteger> ownerAnswers = new ConcurrentSkipListMap<>();

  /** One step of a fault: a signal, a restart. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /** The fault {@code begin} then {@code end}, its beginning noted for the figures. */
  CompletionOutageGate.Fault fault(Step begin, Step end) {
    return new CompletionOutageGate.Fault() {
      @Override
      public void begin() throws Exception {
        faultBegan.set(System.nanoTime());
        begin.run();
      }

      @Override
      public void end() throws Exception {
        end.run();
      }
    };
  }

  /** The owner engine's listener: notes the first completion after the fault began. */
  private IdempotencyListener listener() {
    return event -> {
      if (event instanceof IdempotencyEvent.Completed) {
        noteAfterFault(firstCompletion);
      }
    };
  }

  private void noteAfterFault(AtomicLong first) {
    if (faultBegan.get() != 0) {
      first.compareAndSet(0, System.nanoTime());
    }
  }

  /**
   * The owners' caller: runs the work through {@code engine} and counts how each request ended.
   * Before the fault a claim may fail (a loaded server that did not answer in time; the work has
   * not run) or find the key in flight (that claim landed after all): the owner goes again until
   * its work ran, as a client's retry would.
   */
  private CompletionOutageGate.Caller owner(IdempotencyEngine engine) {
    return (id, work) -> {
      String answer;
      try {
        Outcome outcome = engine.execute(id, FINGERPRINT, Work.stepped(execution -> respond(work)));
        while (outcome instanceof Outcome.StoreUnavailable
            || outcome instanceof Outcome.InFlightConflict) {
          Thread.sleep(100);
          outcome = engine.execute(id, FINGERPRINT, Work.stepped(execution -> respond(work)));
        }
        answer =
            outcome instanceof Outcome.Executed executed
                ? (executed.stored() ? "executed, stored" : "executed, not stored")
                : outcome.getClass().getSimpleName();
      } catch (RuntimeException | OperationFailedException e) {
        answer = e.getClass().getSimpleName();
      }
      ownerAnswers.computeIfAbsent(answer, a -> new AtomicInteger()).incrementAndGet();
    };
  }

  /** Makes an application instance whose owner engine reports to {@code listener}. */
  @FunctionalInterface
  interface Instances {
    GateInstance create(IdempotencyListener listener);
  }

  /**
   * Runs the gate over three instances of {@code instances} (the owners' and two sending
   * duplicates), prints the figures, and checks that every key's record is {@code COMPLETE}
   * afterwards (an outcome lost would leave it in flight, or gone).
   */
  CompletionOutageGate.Result run(
      String name,
      Instances instances,
      int keys,
      CompletionOutageGate.Fault fault,
      Duration outage,
      Duration settle)
      throws Exception {
    List<GateInstance> open = new ArrayList<>();
    try {
      GateInstance owner = instances.create(listener());
      open.add(owner);
      List<CompletionOutageGate.Caller> duplicates = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        GateInstance other = instances.create(IdempotencyListener.NONE);
        open.add(other);
        duplicates.add(duplicate(other.engine));
      }
      // every script cached, as on a server in use: a script the server has never seen answers
      // NOSCRIPT when it wakes, and would hide a timed-out write that lands late
      for (GateInstance instance : open) {
        instance.engine.execute(
            RecordId.of("gate-warm-up", Integer.toString(open.indexOf(instance))),
            FINGERPRINT,
            Work.stepped(execution -> StoredResponse.ofUtf8(201, "warm")));
      }
      CompletionOutageGate.Result result =
          new CompletionOutageGate(keys, owner(owner.engine), duplicates, fault, outage, settle)
              .run(
                  name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", ""),
                  Duration.ofSeconds(100));
      System.out.println(report(name, result));
      assertThat(notComplete(owner.store, result))
          .as("keys whose record is not COMPLETE after the gate: outcomes lost")
          .isEmpty();
      return result;
    } finally {
      for (GateInstance instance : open) {
        instance.close();
      }
    }
  }

  /** A duplicates' caller through {@code engine}: notes the first replay after the fault began. */
  private CompletionOutageGate.Caller duplicate(IdempotencyEngine engine) {
    return (id, work) -> {
      if (engine.execute(id, FINGERPRINT, Work.stepped(execution -> respond(work)))
          instanceof Outcome.Replayed) {
        noteAfterFault(firstReplay);
      }
    };
  }

  private static StoredResponse respond(Runnable work) {
    work.run();
    return StoredResponse.ofUtf8(201, "charged");
  }

  /** The gate's keys whose record in {@code store} is not {@code COMPLETE}: lost outcomes. */
  private static List<RecordId> notComplete(KeyStore store, CompletionOutageGate.Result result) {
    return result.sideEffects().keySet().stream()
        .filter(id -> !store.lookup(id).map(r -> r.state() == KeyState.COMPLETE).orElse(false))
        .toList();
  }

  /** How the owners' requests ended, by answer. */
  Map<String, Integer> ownerAnswers() {
    Map<String, Integer> answers = new ConcurrentSkipListMap<>();
    ownerAnswers.forEach((a, n) -> answers.put(a, n.get()));
    return answers;
  }

  /** From the fault's beginning to the first duplicate answered with a replay; null if none. */
  @Nullable Duration untilFirstReplay() {
    return since(firstReplay);
  }

  private @Nullable Duration since(AtomicLong first) {
    long began = faultBegan.get();
    long at = first.get();
    return began == 0 || at == 0 ? null : Duration.ofNanos(at - began);
  }

  /** The gate's figures and these, on one line, for the test's output. */
  String report(String gate, CompletionOutageGate.Result result) {
    return "["
        + gate
        + "] "
        + result
        + "; after the fault began, the first completion stored "
        + millis(since(firstCompletion))
        + ", the first replay "
        + millis(since(firstReplay))
        + "; owners: "
        + ownerAnswers();
  }

  private static String millis(@Nullable Duration d) {
    return d == null ? "never" : d.toMillis() + " ms";
  }
}
