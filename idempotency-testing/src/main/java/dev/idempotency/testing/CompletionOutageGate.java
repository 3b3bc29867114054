package dev.idempotency.testing;

import dev.idempotency.RecordId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gate "an outage of the store while the results are stored, shorter than the lease, runs no
 * work twice", for any store and any fault. Each of {@code keys} owners runs its work through its
 * engine; once every work has run (the side effect counted), the fault begins and the works return,
 * so every completion meets the outage; duplicates of every key, through other engines (other
 * application instances), keep arriving through the outage and after it; the fault ends after
 * {@code outage}. The result counts the side effects per key: the gate holds when each key's is 1.
 *
 * <p>Engine-agnostic: a {@link Caller} runs a request of a key through an engine and runs the work
 * it is given as that request's work (so that this module needs no engine). Not thread-safe; one
 * run per instance.
 */
public final class CompletionOutageGate {
  /** Runs one request of {@code id} whose work is {@code work}, through one engine. */
  @FunctionalInterface
  public interface Caller {
    /**
     * Runs the request; whatever it answers or throws (an outage, a conflict) is the engine's.
     *
     * @param id the request's key
     * @param work the request's work: call it as the operation's body, at most once per run
     */
    void call(RecordId id, Runnable work) throws Exception;
  }

  /** The store's outage: begun once every work ran, ended after the outage's length. */
  public interface Fault {
    /** Makes the store unreachable (kill, freeze, cut the connections). */
    void begin() throws Exception;

    /** Makes it reachable again (restart, thaw). */
    void end() throws Exception;
  }

  /**
   * What a run came to.
   *
   * @param sideEffects the side effects per key (the gate holds when every one is 1)
   * @param duplicatesSent requests sent for keys whose owner had already run the work
   * @param unavailableFor how long the fault lasted, begin to end
   */
  public record Result(
      Map<RecordId, Integer> sideEffects, int duplicatesSent, Duration unavailableFor) {
    /** Keys whose work ran more than once. */
    public long keysRunTwice() {
      return sideEffects.values().stream().filter(n -> n > 1).count();
    }

    /** Keys whose work never ran. */
    public long keysNeverRun() {
      return sideEffects.values().stream().filter(n -> n == 0).count();
    }

    @Override
    public String toString() {
      return sideEffects.size()
          + " keys, "
          + duplicatesSent
          + " duplicates sent, "
          + keysRunTwice()
          + " run twice, "
          + keysNeverRun()
          + " never run, store unavailable for "
          + unavailableFor.toMillis()
          + " ms";
    }
  }

  private final int keys;
  private final Caller owner;
  private final List<Caller> duplicates;
  private final Fault fault;
  private final Duration outage;
  private final Duration settle;

  /**
   * A gate.
   *
   * @param keys how many keys, each with one owner thread
   * @param owner runs the owners' requests (one engine)
   * @param duplicates run the duplicates (other engines over the same records), one thread per key
   *     each
   * @param fault the outage
   * @param outage how long the store stays unreachable
   * @param settle how long duplicates keep coming after the outage ended and every owner returned
   */
  public CompletionOutageGate(
      int keys,
      Caller owner,
      List<Caller> duplicates,
      Fault fault,
      Duration outage,
      Duration settle) {
    if (keys < 1) {
      throw new IllegalArgumentException("keys must be >= 1, but was " + keys);
    }
    this.keys = keys;
    this.owner = Objects.requireNonNull(owner, "owner");
    this.duplicates = List.copyOf(duplicates);
    this.fault = Objects.requireNonNull(fault, "fault");
    this.outage = Objects.requireNonNull(outage, "outage");
    this.settle = Objects.requireNonNull(settle, "settle");
  }

  /**
   * Runs the gate within {@code deadline}.
   *
   * @param prefix the keys' prefix, unique to the run
   * @throws IllegalStateException if the owners did not all run their work, or did not all return,
   *     within the deadline
   */
  public Result run(String prefix, Duration deadline) throws Exception {
    long end = System.nanoTime() + deadline.toNanos();
    Map<RecordId, AtomicInteger> effects = new LinkedHashMap<>();
    for (int i = 0; i < keys; i++) {
      effects.put(RecordId.of("gate", prefix + "-" + i), new AtomicInteger());
    }
    Map<RecordId, Boolean> ran = new ConcurrentHashMap<>();
    CountDownLatch allRan = new CountDownLatch(keys);
    CountDownLatch faultBegun = new CountDownLatch(1);
    AtomicLong duplicatesSent = new AtomicLong();
    AtomicInteger threads = new AtomicInteger();
    ExecutorService pool =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "outage-gate-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<?>> owners = new ArrayList<>();
      for (RecordId id : effects.keySet()) {
        owners.add(
            pool.submit(
                () -> {
                  owner.call(
                      id,
                      () -> {
                        effects.get(id).incrementAndGet();
                        if (ran.putIfAbsent(id, Boolean.TRUE) == null) {
                          allRan.countDown();
                        }
                        await(faultBegun, end);
                      });
                  return null;
                }));
      }
      if (!allRan.await(left(end), TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException(
            (keys - allRan.getCount()) + " of " + keys + " owners ran their work in time");
      }
      CountDownLatch stop = new CountDownLatch(1);
      List<Future<?>> senders = new ArrayList<>();
      for (Caller duplicate : duplicates) {
        for (RecordId id : effects.keySet()) {
          senders.add(
              pool.submit(
                  () -> {
                    while (!stop.await(100, TimeUnit.MILLISECONDS)) {
                      duplicatesSent.incrementAndGet();
                      try {
                        duplicate.call(id, () -> effects.get(id).incrementAndGet());
                      } catch (Exception | AssertionError e) {
                        // an outage, a conflict, a replay refused: the engine's answers
                      }
                    }
                    return null;
                  }));
        }
      }
      long begun = System.nanoTime();
      fault.begin();
      faultBegun.countDown();
      TimeUnit.NANOSECONDS.sleep(Math.min(outage.toNanos(), left(end)));
      fault.end();
      Duration unavailable = Duration.ofNanos(System.nanoTime() - begun);
      for (Future<?> f : owners) {
        try {
          f.get(left(end), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          // the owner's answer (a lost lease, a store error): its side effect is what counts
        }
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(settle.toNanos(), left(end)));
      stop.countDown();
      for (Future<?> f : senders) {
        f.get(left(end), TimeUnit.NANOSECONDS);
      }
      Map<RecordId, Integer> counted = new LinkedHashMap<>();
      effects.forEach((id, n) -> counted.put(id, n.get()));
      return new Result(counted, (int) duplicatesSent.get(), unavailable);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void await(CountDownLatch latch, long end) {
    try {
      if (!latch.await(left(end), TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException("the fault did not begin in time");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the fault", e);
    }
  }

  private static long left(long end) {
    return Math.max(0, end - System.nanoTime());
  }
}
