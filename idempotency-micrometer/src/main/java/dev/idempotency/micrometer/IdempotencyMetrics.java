package dev.idempotency.micrometer;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Reaper;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.event.IdempotencyListener;
import dev.idempotency.micrometer.internal.AlarmMeters;
import dev.idempotency.micrometer.internal.TimedKeyStore;
import dev.idempotency.micrometer.internal.TimedTransactionalKeyStore;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.TransactionalKeyStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for one {@link dev.idempotency.core.IdempotencyEngine}: register it as the
 * engine's listener and give the engine the {@linkplain #timed(KeyStore) timed} store.
 *
 * <pre>{@code
 * IdempotencyMetrics metrics = IdempotencyMetrics.create(registry);
 * IdempotencyEngine engine = IdempotencyEngine.builder(metrics.timed(store))
 *     .config(IdempotencyConfig.builder().listener(metrics).build())
 *     .build();
 * }</pre>
 *
 * <table>
 *   <caption>The meters</caption>
 *   <tr><th>name</th><th>type</th><th>tag: values</th></tr>
 *   <tr><td>{@value #OUTCOMES}</td><td>counter</td><td>{@code outcome}: {@code executed},
 *       {@code replayed}, {@code mismatch}, {@code in_flight}, {@code store_unavailable},
 *       {@code takeover}</td></tr>
 *   <tr><td>{@value #CLAIM}</td><td>timer</td><td>{@code result}: {@code claimed},
 *       {@code taken_over}, {@code completed}, {@code in_flight}, {@code mismatch},
 *       {@code unavailable}, {@code error}</td></tr>
 *   <tr><td>{@value #REQUEST}</td><td>timer</td><td>{@code outcome}, as {@value #OUTCOMES}</td></tr>
 *   <tr><td>{@value #IN_FLIGHT}</td><td>gauge</td><td>none: operations this instance runs now</td></tr>
 *   <tr><td>{@value #ABANDONED}</td><td>gauge</td><td>none: in-flight records whose lease expired,
 *       as last sampled (up to the sample's limit)</td></tr>
 *   <tr><td>{@value #REAPER_DELETED}</td><td>counter</td><td>none</td></tr>
 *   <tr><td>{@value #REAPER_UNFINISHED}</td><td>counter</td><td>none: deleted while in flight,
 *       never completed</td></tr>
 *   <tr><td>{@value #LEASE_LOST}</td><td>counter</td><td>none</td></tr>
 *   <tr><td>{@value #RELEASED}</td><td>counter</td><td>none: keys given up so a retry runs
 *       anew</td></tr>
 *   <tr><td>{@value #UNSTORED}</td><td>counter</td><td>{@code kept}: {@code marker} (the result
 *       was too large for the store or refused by it, and the not-stored marker stands in for it:
 *       a retry gets the marker, nothing runs twice), {@code nothing} (the store could not be
 *       reached before the lease ran short: the record stays in flight and a retry after the lease
 *       runs the operation again unless it left a recovery point)</td></tr>
 *   <tr><td>{@value #DUPLICATE_RISK}</td><td>counter</td><td>{@code cause}:
 *       {@code takeover_without_recovery_point} (a record in flight whose lease expired was taken
 *       over with no recovery point: the earlier owner's work may have run, and runs again from its
 *       start), {@code completion_failed} (the work ran and nothing was stored, as {@code
 *       kept=nothing} above), {@code lease_lost_after_work} (the work returned and its completion
 *       was refused: the new owner runs it again). Zero by design: the alarm</td></tr>
 *   <tr><td>{@value #ORPHANED}</td><td>counter</td><td>{@code found_by}: {@code takeover} (a
 *       retry or the completer took over a record whose owner's lease expired before it completed),
 *       {@code reaper} (deleted in flight past retention). Watched as a trend</td></tr>
 * </table>
 *
 * <p>No tag ever carries a key, a scope or a message: every tag value is one of the fixed names
 * above, so the number of series is bounded whatever the traffic. The engine publishes its events
 * on the thread that decided, so one request's outcome is known on its own thread: that is how the
 * {@value #REQUEST} timer ({@link #startRequest()}) learns the outcome to tag with, and how a store
 * failure while storing a result is told apart from a claim the store refused. Thread-safe.
 */
public final class IdempotencyMetrics implements IdempotencyListener {
  /** The counter of the engine's decisions, one per claim that settled. */
  public static final String OUTCOMES = "idempotency.outcomes";

  /** The timer of the store's claims. */
  public static final String CLAIM = "idempotency.claim";

  /** The timer of whole guarded requests, from {@link #startRequest()} to {@link Sample#stop()}. */
  public static final String REQUEST = "idempotency.request";

  /** The gauge of operations this instance runs under a claim. */
  public static final String IN_FLIGHT = "idempotency.in.flight";

  /** The gauge of abandoned keys: in-flight records whose lease expired (the completer's queue). */
  public static final String ABANDONED = "idempotency.abandoned";

  /** The counter of records the reaper deleted. */
  public static final String REAPER_DELETED = "idempotency.reaper.deleted";

  /** The counter of in-flight records the reaper deleted: requests that never completed. */
  public static final String REAPER_UNFINISHED = "idempotency.reaper.unfinished";

  /** The counter of leases this instance lost to another owner. */
  public static final String LEASE_LOST = "idempotency.lease.lost";

  /** The counter of keys released for a retry to run anew. */
  public static final String RELEASED = "idempotency.released";

  /** The counter of executed requests whose result the store failed to store. */
  public static final String UNSTORED = "idempotency.results.unstored";

  /**
   * The counter of the events that can lead to a duplicate side effect, by {@code cause}: the
   * library cannot see a duplicate in the application's own effects, only these.
   */
  public static final String DUPLICATE_RISK = "idempotency.duplicate.risk";

  /** The counter of keys found orphaned (claimed, never completed), by {@code found_by}. */
  public static final String ORPHANED = "idempotency.orphaned";

  private static final String[] OUTCOME_NAMES = {
    "executed", "replayed", "mismatch", "in_flight", "store_unavailable", "takeover"
  };
  private static final String[] CLAIM_RESULTS = {
    "claimed", "taken_over", "completed", "in_flight", "mismatch", "unavailable", "error"
  };

  private final MeterRegistry registry;
  private final Tags tags;
  private final long runningHorizonNanos;
  private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();
  private final Map<String, Timer> claims = new ConcurrentHashMap<>();
  private final Map<String, Timer> requests = new ConcurrentHashMap<>();
  private final Counter reaperDeleted;
  private final Counter reaperUnfinished;
  private final Counter leaseLost;
  private final Counter released;
  private final Counter unstoredMarker;
  private final Counter unstoredNothing;
  private final AtomicLong abandoned = new AtomicLong();
  private final AlarmMeters alarms;

  /**
   * This instance's running operations, by record and owner's fence (a second thread may take over
   * a record the first still runs), with when (nanoTime) each claimed.
   */
  private final Map<Run, Long> running = new ConcurrentHashMap<>();

  /**
   * The records each thread runs under a claim, with the meters that saw the claim: more than one
   * when a guarded operation calls another (an HTTP request that calls an idempotent method).
   */
  private static final ThreadLocal<List<Owned>> OWNED_HERE =
      ThreadLocal.withInitial(ArrayList::new);

  /** The guarded request each thread times, if any. */
  private static final ThreadLocal<@Nullable Sample> TIMED_HERE = new ThreadLocal<>();

  private record Owned(IdempotencyMetrics metrics, Run run) {}

  private record Run(RecordId id, FenceToken fence) {}

  private IdempotencyMetrics(Builder b) {
    this.registry = b.registry;
    this.tags = b.tags;
    this.runningHorizonNanos = b.runningHorizon.toNanos();
    for (String outcome : OUTCOME_NAMES) {
      outcomes.put(
          outcome,
          Counter.builder(OUTCOMES)
              .description("the engine's decisions about guarded requests")
              .tags(tags)
              .tag("outcome", outcome)
              .register(registry));
    }
    for (String result : CLAIM_RESULTS) {
      claims.put(
          result,
          Timer.builder(CLAIM)
              .description("the store's claims")
              .tags(tags)
              .tag("result", result)
              .register(registry));
    }
    for (String outcome : OUTCOME_NAMES) {
      requests.put(
          outcome,
          Timer.builder(REQUEST)
              .description("guarded requests, whole")
              .tags(tags)
              .tag("outcome", outcome)
              .register(registry));
    }
    reaperDeleted = counter(REAPER_DELETED, "records the reaper deleted");
    reaperUnfinished =
        counter(REAPER_UNFINISHED, "in-flight records the reaper deleted: never completed");
    leaseLost = counter(LEASE_LOST, "leases this instance lost to another owner");
    released = counter(RELEASED, "keys released so that a retry runs anew");
    unstoredMarker =
        Counter.builder(UNSTORED)
            .description("executed requests whose result the store could not keep")
            .tags(tags)
            .tag("kept", "marker")
            .register(registry);
    unstoredNothing =
        Counter.builder(UNSTORED)
            .description("executed requests whose result the store could not keep")
            .tags(tags)
            .tag("kept", "nothing")
            .register(registry);
    alarms = new AlarmMeters(registry, tags, DUPLICATE_RISK, ORPHANED);
    Gauge.builder(IN_FLIGHT, this, IdempotencyMetrics::runningNow)
        .description("operations this instance runs under a claim")
        .tags(tags)
        .register(registry);
    Gauge.builder(ABANDONED, abandoned, AtomicLong::get)
        .description("in-flight records whose lease expired, as last sampled")
        .tags(tags)
        .register(registry);
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name).description(description).tags(tags).register(registry);
  }

  /** Meters in {@code registry}, with no common tags and the engine's default operation time. */
  public static IdempotencyMetrics create(MeterRegistry registry) {
    return builder(registry).build();
  }

  /** Starts building meters in {@code registry}. */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(Objects.requireNonNull(registry, "registry"));
  }

  /**
   * {@code store}, with each claim timed ({@value #CLAIM}); every other call passes through
   * unchanged. A {@link TransactionalKeyStore} stays one, so the engine's transactional runs work
   * on the result as on {@code store}. A claim made inside a one-transaction run is the work's
   * transaction and is not timed.
   */
  public KeyStore timed(KeyStore store) {
    Objects.requireNonNull(store, "store");
    TimedKeyStore.ClaimTimer timer =
        (nanos, result) ->
            Objects.requireNonNull(claims.get(result), result).record(nanos, TimeUnit.NANOSECONDS);
    if (store instanceof TransactionalKeyStore<?> transactional) {
      return transactionalTimed(transactional, timer);
    }
    return new TimedKeyStore(store, timer);
  }

  private static <T> KeyStore transactionalTimed(
      TransactionalKeyStore<T> store, TimedKeyStore.ClaimTimer timer) {
    return new TimedTransactionalKeyStore<>(store, timer);
  }

  /**
   * Starts timing a guarded request on this thread; {@link Sample#stop()} on the same thread
   * records it under the outcome the engine decided meanwhile, or records nothing when the engine
   * decided nothing (the request was refused before its claim, or not guarded).
   */
  public Sample startRequest() {
    Sample sample = new Sample(System.nanoTime());
    TIMED_HERE.set(sample);
    return sample;
  }

  /** One guarded request being timed. */
  public final class Sample {
    private final long start;
    private @Nullable String outcome;

    private Sample(long start) {
      this.start = start;
    }

    /**
     * Records the request, if the engine decided its outcome on this thread.
     *
     * @return the outcome recorded, or empty when nothing was recorded
     */
    public Optional<String> stop() {
      if (TIMED_HERE.get() == this) {
        TIMED_HERE.remove();
      }
      String outcome = this.outcome;
      if (outcome != null) {
        Objects.requireNonNull(requests.get(outcome), outcome)
            .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      }
      return Optional.ofNullable(outcome);
    }

    private IdempotencyMetrics metrics() {
      return IdempotencyMetrics.this;
    }
  }

  /** Counts what one reaper run deleted. */
  public void reaperRan(Reaper.Report report) {
    reaperDeleted.increment(report.deleted());
    reaperUnfinished.increment(report.unfinished().size());
    alarms.reaperDeletedUnfinished(report.unfinished().size());
  }

  /**
   * Samples the abandoned keys: asks {@code store} for up to {@code limit} in-flight records whose
   * lease expired by {@code now}, and sets {@value #ABANDONED} to how many it found. One bounded
   * read; call it on a schedule, not per scrape.
   *
   * @return the count found, at most {@code limit}
   * @throws dev.idempotency.StoreUnavailableException if the store cannot be reached; the gauge
   *     keeps its last value
   */
  public int sampleAbandoned(KeyStore store, Instant now, int limit) {
    int found = store.findAbandoned(now, limit).size();
    abandoned.set(found);
    return found;
  }

  @Override
  public void onEvent(IdempotencyEvent event) {
    alarms.onEvent(event);
    if (event instanceof IdempotencyEvent.Claimed e) {
      started(e.id(), e.fence(), "executed");
    } else if (event instanceof IdempotencyEvent.TakenOver e) {
      started(e.id(), e.fence(), "takeover");
    } else if (event instanceof IdempotencyEvent.Replayed) {
      decided("replayed");
    } else if (event instanceof IdempotencyEvent.Mismatched) {
      decided("mismatch");
    } else if (event instanceof IdempotencyEvent.InFlightConflict) {
      decided("in_flight");
    } else if (event instanceof IdempotencyEvent.StoreUnavailable e) {
      Run ownRun = ownedHere(e.id());
      if (ownRun != null) {
        // this thread ran the operation under its claim (one transaction): its commit failed, and
        // the work's writes rolled back with the record
        ended(ownRun);
      } else {
        decided("store_unavailable");
      }
    } else if (event instanceof IdempotencyEvent.Completed e) {
      ended(new Run(e.id(), e.fence()));
    } else if (event instanceof IdempotencyEvent.Released e) {
      released.increment();
      ended(new Run(e.id(), e.fence()));
    } else if (event instanceof IdempotencyEvent.ResponseNotStored e) {
      unstoredMarker.increment();
      ended(new Run(e.id(), e.fence()));
    } else if (event instanceof IdempotencyEvent.CompletionFailed e) {
      unstoredNothing.increment();
      ended(new Run(e.id(), e.fence()));
    } else if (event instanceof IdempotencyEvent.LeftInFlight e) {
      ended(new Run(e.id(), e.fence()));
    } else if (event instanceof IdempotencyEvent.LeaseLost e) {
      // the heartbeat and then the owner's refused write may both report one loss: the first
      // report ends the run, so only it counts
      if (ended(new Run(e.id(), e.fence()))) {
        leaseLost.increment();
      }
    }
  }

  private void started(RecordId id, FenceToken fence, String outcome) {
    Run run = new Run(id, fence);
    running.put(run, System.nanoTime());
    OWNED_HERE.get().add(new Owned(this, run));
    decided(outcome);
  }

  private void decided(String outcome) {
    Objects.requireNonNull(outcomes.get(outcome), outcome).increment();
    Sample sample = TIMED_HERE.get();
    if (sample != null && sample.metrics() == this && sample.outcome == null) {
      // the first decision is the request's own: a guarded operation may call another one
      sample.outcome = outcome;
    }
  }

  /** The run of {@code id} this thread owns under these meters, if any. */
  private @Nullable Run ownedHere(RecordId id) {
    List<Owned> owned = OWNED_HERE.get();
    for (Owned o : owned) {
      if (o.metrics() == this && o.run().id().equals(id)) {
        return o.run();
      }
    }
    if (owned.isEmpty()) {
      OWNED_HERE.remove();
    }
    return null;
  }

  /** Ends this instance's {@code run}; true when it was running. */
  private boolean ended(Run run) {
    List<Owned> owned = OWNED_HERE.get();
    owned.remove(new Owned(this, run));
    if (owned.isEmpty()) {
      OWNED_HERE.remove();
    }
    return running.remove(run) != null;
  }

  /**
   * Operations running now. An operation whose end the engine could not report (its release failed
   * on an unreachable store) is dropped once it is older than the running horizon, past which the
   * engine has stopped renewing its lease anyway.
   */
  private double runningNow() {
    long now = System.nanoTime();
    running.values().removeIf(since -> now - since > runningHorizonNanos);
    return running.size();
  }

  /** Builds {@link IdempotencyMetrics}. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Tags tags = Tags.empty();
    private Duration runningHorizon =
        IdempotencyConfig.DEFAULT_MAX_OPERATION_TIME.plus(IdempotencyConfig.DEFAULT_LEASE);

    private Builder(MeterRegistry registry) {
      this.registry = registry;
    }

    /**
     * Tags every meter carries (an application or engine name). Keep their values fixed: a tag per
     * key or caller would grow the series without bound.
     */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
      return this;
    }

    /**
     * The engine's configuration, whose {@code maxOperationTime + lease} bounds how long an
     * operation counts as running in {@value #IN_FLIGHT} without the engine reporting its end.
     */
    public Builder engineConfig(IdempotencyConfig config) {
      this.runningHorizon = config.maxOperationTime().plus(config.lease());
      return this;
    }

    /** Registers the meters and returns them. */
    public IdempotencyMetrics build() {
      return new IdempotencyMetrics(this);
    }
  }
}
