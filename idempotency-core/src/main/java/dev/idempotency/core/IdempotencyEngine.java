package dev.idempotency.core;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.internal.Events;
import dev.idempotency.core.internal.ExecutionImpl;
import dev.idempotency.core.internal.Heartbeats;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.event.IdempotencyListener;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.StoreUnavailableException;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.spi.TransactionalWork;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Drives the three-state machine of idempotency keys over any {@link KeyStore}: claims the key,
 * runs the operation while heartbeating its lease, stores the result under the fence, and returns
 * the {@link Outcome}.
 *
 * <pre>{@code
 * IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
 * Outcome outcome = engine.execute(RecordId.of(accountId, key), fingerprint, execution -> charge(request));
 * }</pre>
 *
 * <p>What happens to one request:
 *
 * <ol>
 *   <li>The store claims {@code (scope, key)} atomically. Completed with the same fingerprint →
 *       {@link Outcome.Replayed}; another fingerprint → {@link Outcome.Mismatch}; in flight under a
 *       live lease → {@link Outcome.InFlightConflict} (after a bounded wait, if the {@link
 *       InFlightPolicy} says so); store unreachable → {@link Outcome.StoreUnavailable}, and the
 *       operation does not run (fail closed).
 *   <li>Won (fresh, or a takeover of an expired lease, resuming from the last recovery point): the
 *       operation runs while a heartbeat renews the lease every {@link
 *       IdempotencyConfig#heartbeatInterval()} (one store call for all running operations), for at
 *       most {@link IdempotencyConfig#maxOperationTime()}; an owner whose lease cannot be confirmed
 *       in time is told through {@link dev.idempotency.Execution#leaseLost()}.
 *   <li>It returned a response: stored under the fence ({@link Outcome.Executed}) unless the {@link
 *       StoredResponsePolicy} excludes it, in which case the key is released. If another owner took
 *       the key over meanwhile, the store refuses the write and {@link LeaseLostException} is
 *       thrown.
 *   <li>It threw: the key is released when no phase had committed (a retry runs anew), else left in
 *       flight for a retry or the {@link Completer} to resume; {@link OperationFailedException} is
 *       thrown.
 * </ol>
 *
 * <p>Thread-safe; one engine serves the whole application. {@link #close()} stops its heartbeat
 * threads.
 *
 * <p>One class of about 660 lines, most of it javadoc: the two ways to run a request ({@link
 * #execute}, {@link #executeInOneTransaction}) share the claim loop and its answers here, which
 * read best beside both; the one-transaction run lives in {@code OneTransactionRun}, the heartbeats
 * in {@code internal.Heartbeats}, the wait's cancellable sleep in {@link WaitCancellation}, and the
 * builder is the seam should the class grow.
 */
public final class IdempotencyEngine implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
  private static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

  private final KeyStore store;
  private final IdempotencyConfig config;
  private final InstantSource clock;
  private final IdempotencyListener listener;
  private final Heartbeats heartbeats;
  private volatile boolean closed;

  private IdempotencyEngine(KeyStore store, IdempotencyConfig config) {
    this.store = store;
    this.config = config;
    this.clock = config.clock();
    this.listener = config.listener();
    this.heartbeats =
        new Heartbeats(
            store,
            clock,
            config.heartbeatInterval(),
            config.lease(),
            config.leaseSafetyMargin(),
            config.maxOperationTime(),
            this::publish);
  }

  /** Starts building an engine over {@code store}, with every setting at its default. */
  public static Builder builder(KeyStore store) {
    return new Builder(Objects.requireNonNull(store, "store"));
  }

  /** The engine's configuration. */
  public IdempotencyConfig config() {
    return config;
  }

  /** The store the engine drives. */
  public KeyStore store() {
    return store;
  }

  /**
   * The store the engine drives, as the {@link TransactionalKeyStore} it is, for a request whose
   * phases run business writes in the store's transactions ({@code inPhase}, {@code completeWith}).
   *
   * @param <T> the store's transaction handle, for {@code JdbcKeyStore} {@code java.sql.Connection}
   * @throws IllegalStateException if the store does not declare {@link
   *     StoreCapability#TRANSACTIONAL}
   */
  public <T> TransactionalKeyStore<T> transactionalStore() {
    if (!(store instanceof TransactionalKeyStore<?> transactional)
        || !store.capabilities().contains(StoreCapability.TRANSACTIONAL)) {
      throw new IllegalStateException(
          "the store "
              + store
              + " does not declare StoreCapability.TRANSACTIONAL: it runs no business writes in its"
              + " transactions (JdbcKeyStore does)");
    }
    return OneTransactionRun.typed(transactional);
  }

  /**
   * Runs {@code operation} at most once for the record {@code id} within the replay window, and
   * returns what happened.
   *
   * @param id the scope and key of the request
   * @param fingerprint the fingerprint of the request
   * @param operation the work the key guards
   * @return the outcome; never null
   * @throws OperationFailedException if the operation threw (its cause); the key was released or
   *     left in flight as {@link OperationFailedException#keyReleased()} says: released only when
   *     nothing had committed and the failure was not the store's (a {@link
   *     StoreUnavailableException} may hide a committed checkpoint)
   * @throws LeaseLostException if the operation ran but another owner took the key over before its
   *     result could be stored: the lease expired while the operation ran (heartbeats failed, or
   *     the process was paused)
   * @throws InterruptedException if the thread was interrupted while waiting on an in-flight key
   * @throws IllegalStateException if the engine was closed
   */
  public Outcome execute(RecordId id, Fingerprint fingerprint, Operation operation)
      throws OperationFailedException, InterruptedException {
    return claimAndRun(id, fingerprint, operation, null);
  }

  /**
   * {@link #execute(RecordId, Fingerprint, Operation)} whose wait on an in-flight key {@code
   * cancellation} can end from another thread without an interrupt, which could land in a store
   * call (see {@link WaitCancellation}): the wait ends before its next claim, with {@link
   * Outcome.InFlightConflict}. It does not stop an operation that has started.
   *
   * @param id the scope and key of the request
   * @param fingerprint the fingerprint of the request
   * @param operation the work the key guards
   * @param cancellation ends the wait
   * @return the outcome; never null
   * @throws OperationFailedException as {@link #execute(RecordId, Fingerprint, Operation)}
   * @throws InterruptedException if the thread was interrupted while waiting on an in-flight key
   */
  public Outcome execute(
      RecordId id, Fingerprint fingerprint, Operation operation, WaitCancellation cancellation)
      throws OperationFailedException, InterruptedException {
    return claimAndRun(
        id, fingerprint, operation, Objects.requireNonNull(cancellation, "cancellation"));
  }

  private Outcome claimAndRun(
      RecordId id,
      Fingerprint fingerprint,
      Operation operation,
      @Nullable WaitCancellation cancellation)
      throws OperationFailedException, InterruptedException {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(operation, "operation");
    if (closed) {
      throw new IllegalStateException("the engine is closed: no lease it claimed would be renewed");
    }
    return untilSettled(
        id,
        cancellation,
        now -> {
          Instant leaseStart =
              heartbeats.leaseTime(now); // read before the claim: its lease cannot start earlier
          ClaimOutcome claim;
          try {
            claim =
                store.claim(
                    new ClaimRequest(id, fingerprint, now, config.lease(), config.replayWindow()));
          } catch (StoreUnavailableException e) {
            return Settled.outcome(storeUnavailable(id, now, e));
          }
          if (claim instanceof ClaimOutcome.Claimed won) {
            return Settled.outcome(run(id, won, leaseStart, operation));
          }
          return answer(id, now, claim);
        });
  }

  /**
   * Runs a request of one step in one transaction of the store: the claim, {@code work} and the
   * completion with its response commit together, once ({@link
   * TransactionalKeyStore#claimAndComplete}). For a request with no call outside its database
   * transaction it costs one commit instead of two (the claim's and the completion's); a request
   * that calls anything else needs {@link #execute} and its recovery points.
   *
   * <pre>{@code
   * Outcome outcome = engine.executeInOneTransaction(id, fingerprint, (Connection tx) -> {
   *   insertOrder(tx, order);                           // the application's statements only
   *   return StoredResponse.of(201, Map.of(), body);
   * });
   * }</pre>
   *
   * <p>What differs from {@link #execute}:
   *
   * <ul>
   *   <li>No lease is renewed: nobody else can see the record before it commits complete. A
   *       concurrent duplicate waits on the record's lock until this transaction ends (bounded by
   *       the store's lock or statement timeout, then {@link Outcome.InFlightConflict}), and then
   *       replays its response; the {@link InFlightPolicy} applies to that answer as to any other.
   *   <li>Work that throws rolls everything back, the claim included: the key stays absent and a
   *       retry runs as a first attempt ({@link OperationFailedException#keyReleased()} is true).
   *       So does a crash of the process before the commit.
   *   <li>A response the {@link StoredResponsePolicy} excludes rolls the whole transaction back
   *       too, the work's writes included (the key stays absent, as it would be released): {@link
   *       Outcome.Executed} with {@code stored} false.
   *   <li>A record left in flight by {@link #execute} with an expired lease is taken over when it
   *       has no recovery point; with one, one transaction cannot resume it, nothing is written,
   *       and the answer is {@link Outcome.InFlightConflict} (logged as a warning) until a retry
   *       through {@code execute} or the {@link Completer} resumes it.
   * </ul>
   *
   * Events are those of {@code execute}: {@code Claimed} or {@code TakenOver} as the work starts,
   * {@code Completed} after the commit, {@code Released} when the work threw or the policy excluded
   * its response, {@code Replayed}, {@code Mismatched}, {@code InFlightConflict}, {@code
   * StoreUnavailable}. A claim is not always followed by {@code Completed} or {@code Released}: a
   * run the store repeats after a retryable abort publishes {@code Claimed} again (or, if the new
   * claim does not win, the answer it gets), and a completion or commit that fails publishes {@code
   * StoreUnavailable} although the work ran (its writes rolled back with the claim).
   *
   * @param <T> the store's transaction handle, for {@code JdbcKeyStore} {@code java.sql.Connection}
   * @param id the scope and key of the request
   * @param fingerprint the fingerprint of the request
   * @param work the request's business writes on the store's transaction, returning its response;
   *     it must neither commit nor roll back, and may run again after a retryable abort
   * @return the outcome; never null
   * @throws OperationFailedException if the work threw (its cause); nothing committed
   * @throws InterruptedException if the thread was interrupted while waiting on an in-flight key
   * @throws IllegalStateException if the engine was closed, or its store does not declare {@link
   *     StoreCapability#ONE_TRANSACTION}
   * @throws ClassCastException if {@code T} is not the store's transaction handle
   */
  public <T> Outcome executeInOneTransaction(
      RecordId id, Fingerprint fingerprint, TransactionalWork<T, StoredResponse> work)
      throws OperationFailedException, InterruptedException {
    return executeInOneTransaction(id, fingerprint, work, config.storedResponsePolicy());
  }

  /**
   * {@link #executeInOneTransaction(RecordId, Fingerprint, TransactionalWork)} with {@code policy}
   * judging this request's response in place of {@link IdempotencyConfig#storedResponsePolicy()}:
   * for a caller that stores another response than the one it means to be judged, such as the HTTP
   * layer's not-stored marker (status 500) of an oversized response, which the configured policy
   * must judge by the application's own status, not the marker's.
   *
   * @param <T> the store's transaction handle
   * @param id the scope and key of the request
   * @param fingerprint the fingerprint of the request
   * @param work the request's business writes on the store's transaction, returning its response
   * @param policy whether the response {@code work} returned is stored, or everything rolls back
   * @return the outcome; never null
   * @throws OperationFailedException if the work threw (its cause); nothing committed
   * @throws InterruptedException if the thread was interrupted while waiting on an in-flight key
   * @throws IllegalStateException if the engine was closed, or its store does not declare {@link
   *     StoreCapability#ONE_TRANSACTION}
   */
  public <T> Outcome executeInOneTransaction(
      RecordId id,
      Fingerprint fingerprint,
      TransactionalWork<T, StoredResponse> work,
      StoredResponsePolicy policy)
      throws OperationFailedException, InterruptedException {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(policy, "policy");
    if (closed) {
      throw new IllegalStateException("the engine is closed");
    }
    if (!(store instanceof TransactionalKeyStore<?> transactional)
        || !store.capabilities().contains(StoreCapability.ONE_TRANSACTION)) {
      throw new IllegalStateException(
          "the store "
              + store
              + " does not declare StoreCapability.ONE_TRANSACTION, so it cannot run a request in"
              + " one transaction; use execute (JdbcKeyStore declares it)");
    }
    OneTransactionRun<T> run =
        new OneTransactionRun<>(this, OneTransactionRun.typed(transactional), id, work, policy);
    return untilSettled(
        id,
        null,
        now -> {
          ClaimRequest request =
              new ClaimRequest(id, fingerprint, now, config.lease(), config.replayWindow());
          return run.attempt(request);
        });
  }

  /** What one claim of a request came to: an outcome, or its key in flight. */
  record Settled(@Nullable Outcome outcome, ClaimOutcome.@Nullable InFlight inFlight) {
    static Settled outcome(Outcome outcome) {
      return new Settled(outcome, null);
    }
  }

  /** One claim of a request, at {@code now}. */
  @FunctionalInterface
  interface Attempt {
    Settled claimAt(Instant now) throws OperationFailedException;
  }

  /**
   * Claims until the request settles: at once, or after the {@link InFlightPolicy}'s bounded wait
   * while its key is in flight.
   */
  private Outcome untilSettled(
      RecordId id, @Nullable WaitCancellation cancellation, Attempt attempt)
      throws OperationFailedException, InterruptedException {
    InFlightPolicy waiting = config.inFlightPolicy();
    long waitStart =
        0; // read the wall clock only once a wait begins: replays and fresh claims never need it
    while (true) {
      Instant now = clock.instant();
      Settled settled = attempt.claimAt(now);
      if (settled.outcome() != null) {
        return settled.outcome();
      }
      ClaimOutcome.InFlight inFlight = Objects.requireNonNull(settled.inFlight(), "inFlight");
      if (waitStart == 0) {
        waitStart = System.nanoTime();
      }
      // Wall time, not the engine's clock, bounds the wait: it measures how long this thread is
      // held, and a test clock that does not move must not make the wait endless.
      long leftNanos = waiting.maxWait().toNanos() - (System.nanoTime() - waitStart);
      if (waiting.waits() && leftNanos > 0 && pause(cancellation, leftNanos, waiting)) {
        continue;
      }
      Duration retryAfter = retryAfter(inFlight.leaseRemaining());
      publish(
          new IdempotencyEvent.InFlightConflict(
              id, now, retryAfter, Duration.ofNanos(System.nanoTime() - waitStart)));
      return new Outcome.InFlightConflict(retryAfter);
    }
  }

  /**
   * Sleeps between two claims of a wait; false when {@code cancellation} ended the wait (before or
   * during the sleep), so that no further claim is made.
   */
  private static boolean pause(
      @Nullable WaitCancellation cancellation, long leftNanos, InFlightPolicy waiting)
      throws InterruptedException {
    long nanos = Math.min(leftNanos, waiting.pollInterval().toNanos());
    if (cancellation == null) {
      TimeUnit.NANOSECONDS.sleep(nanos);
      return true;
    }
    return cancellation.pause(nanos);
  }

  /** The answer to a claim that was not won: a replay, a mismatch, or the key in flight. */
  Settled answer(RecordId id, Instant now, ClaimOutcome claim) {
    if (claim instanceof ClaimOutcome.Completed done) {
      publish(new IdempotencyEvent.Replayed(id, now, done.response().status()));
      return Settled.outcome(new Outcome.Replayed(done.response(), done.completedAt()));
    }
    if (claim instanceof ClaimOutcome.Mismatch mismatch) {
      publish(new IdempotencyEvent.Mismatched(id, now, mismatch.existingState()));
      return Settled.outcome(new Outcome.Mismatch(mismatch.existingState()));
    }
    return new Settled(null, (ClaimOutcome.InFlight) claim);
  }

  Outcome storeUnavailable(RecordId id, Instant now, StoreUnavailableException e) {
    publish(new IdempotencyEvent.StoreUnavailable(id, now, String.valueOf(e.getMessage())));
    return new Outcome.StoreUnavailable(e);
  }

  /** The configured in-flight Retry-After, capped by the remaining lease, at least one second. */
  private Duration retryAfter(Duration leaseRemaining) {
    Duration suggested = config.inFlightRetryAfter();
    if (leaseRemaining.compareTo(suggested) < 0) {
      suggested = leaseRemaining;
    }
    return suggested.compareTo(MIN_RETRY_AFTER) < 0 ? MIN_RETRY_AFTER : suggested;
  }

  private Outcome run(RecordId id, ClaimOutcome.Claimed won, Instant claimedAt, Operation operation)
      throws OperationFailedException {
    Instant start = clock.instant();
    publish(
        won.takeover()
            ? new IdempotencyEvent.TakenOver(id, start, won.fence(), won.resumeFrom())
            : new IdempotencyEvent.Claimed(id, start, won.fence()));
    ExecutionImpl execution =
        new ExecutionImpl(store, id, won, clock, config.lease(), claimedAt, heartbeats);
    heartbeats.start(execution);
    StoredResponse response = null;
    Throwable thrown = null;
    try {
      response = operation.run(execution);
    } catch (Throwable t) {
      thrown = t;
    } finally {
      // stop heartbeating before any release (a beat already under way may still finish, and be
      // refused)
      heartbeats.stop(execution);
    }
    if (thrown instanceof LeaseLostException lost) {
      // a fenced write inside the operation (a checkpoint) was refused: another owner has the key
      // now
      publish(new IdempotencyEvent.LeaseLost(id, clock.instant(), won.fence()));
      throw lost;
    }
    if (thrown instanceof Error error) {
      failed(execution, error);
      throw error;
    }
    if (thrown != null) {
      throw failed(execution, thrown);
    }
    if (response == null) {
      throw failed(
          execution, new NullPointerException("the operation returned null instead of a response"));
    }
    return finish(execution, response);
  }

  /**
   * Releases the key if nothing committed, else leaves it in flight; returns the exception to
   * throw.
   */
  private OperationFailedException failed(ExecutionImpl execution, Throwable cause) {
    // A StoreUnavailableException from a fenced write (a checkpoint, a transactional phase's
    // commit) leaves its outcome unknown: the phase may have committed without the engine hearing
    // of it. Releasing would erase that recovery point, so the key stays in flight and the next
    // owner resumes from whatever did commit.
    boolean released =
        execution.committedPoint().isEmpty()
            && execution.committedResponse().isEmpty()
            && !causedByStoreUnavailable(cause)
            && release(execution, "operation threw " + cause.getClass().getName());
    if (!released) {
      execution
          .committedPoint()
          .ifPresent(
              point ->
                  publish(
                      new IdempotencyEvent.LeftInFlight(
                          execution.recordId(), clock.instant(), execution.fence(), point)));
    }
    if (cause instanceof InterruptedException) {
      Thread.currentThread()
          .interrupt(); // after the release: the caller must still see the interrupt
    }
    return new OperationFailedException(execution.recordId(), released, cause);
  }

  private static boolean causedByStoreUnavailable(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StoreUnavailableException) {
        return true;
      }
    }
    return false;
  }

  private Outcome finish(ExecutionImpl execution, StoredResponse response) {
    RecordId id = execution.recordId();
    boolean resumed = execution.resumeFrom().isPresent();
    if (execution.committedResponse().isPresent()) {
      // a transactional store already committed the completion together with the business writes
      StoredResponse committed = execution.committedResponse().get();
      publish(
          new IdempotencyEvent.Completed(
              id, clock.instant(), execution.fence(), committed.status()));
      return new Outcome.Executed(committed, execution.fence(), resumed, true);
    }
    if (!config.storedResponsePolicy().shouldStore(response)
        && execution.committedPoint().isEmpty()) {
      release(execution, "status " + response.status() + " is not stored (storedResponsePolicy)");
      return new Outcome.Executed(response, execution.fence(), resumed, false);
    }
    Instant now = clock.instant();
    try {
      store.complete(id, execution.fence(), response, now);
    } catch (LeaseLostException lost) {
      publish(new IdempotencyEvent.LeaseLost(id, now, execution.fence()));
      throw lost;
    } catch (StoreUnavailableException e) {
      // The work is done and the caller should have its result; the key stays in flight, and a
      // retry after the lease may run the operation again unless the operation checkpointed. Say so
      // loudly.
      LOG.log(
          System.Logger.Level.WARNING,
          "could not store the result of "
              + id
              + "; the key stays in flight and a retry after the lease expires may run the operation again",
          e);
      publish(new IdempotencyEvent.StoreUnavailable(id, now, String.valueOf(e.getMessage())));
      return new Outcome.Executed(response, execution.fence(), resumed, false);
    }
    publish(new IdempotencyEvent.Completed(id, now, execution.fence(), response.status()));
    return new Outcome.Executed(response, execution.fence(), resumed, true);
  }

  /**
   * Releases the key; true when it was released, false when the store refused or failed (it stays
   * in flight).
   */
  private boolean release(ExecutionImpl execution, String reason) {
    Instant now = clock.instant();
    try {
      store.release(execution.recordId(), execution.fence(), now);
      publish(new IdempotencyEvent.Released(execution.recordId(), now, execution.fence(), reason));
      return true;
    } catch (LeaseLostException e) {
      publish(new IdempotencyEvent.LeaseLost(execution.recordId(), now, execution.fence()));
      return false;
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "could not release "
              + execution.recordId()
              + " after: "
              + reason
              + "; it stays in flight until its lease expires",
          e);
      return false;
    }
  }

  void publish(IdempotencyEvent event) {
    Events.publish(listener, event);
  }

  /**
   * Stops the heartbeat threads and refuses new executions. Operations still running lose their
   * heartbeats, and their owners are told through {@link dev.idempotency.Execution#leaseLost()}.
   */
  @Override
  public void close() {
    closed = true;
    heartbeats.tellAll();
    heartbeats.close();
  }

  /**
   * Builds an {@link IdempotencyEngine}: a store plus an {@link IdempotencyConfig}, set whole or
   * through the shortcuts here. Not thread-safe.
   */
  public static final class Builder {
    private final KeyStore store;
    private IdempotencyConfig.Builder config = IdempotencyConfig.builder();

    private Builder(KeyStore store) {
      this.store = store;
    }

    /** Replaces the whole configuration. */
    public Builder config(IdempotencyConfig config) {
      this.config = Objects.requireNonNull(config, "config").toBuilder();
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#replayWindow}. */
    public Builder replayWindow(Duration replayWindow) {
      config.replayWindow(replayWindow);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#retention}. */
    public Builder retention(Duration retention) {
      config.retention(retention);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#lease}. */
    public Builder lease(Duration lease) {
      config.lease(lease);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#heartbeatInterval}. */
    public Builder heartbeatInterval(Duration heartbeatInterval) {
      config.heartbeatInterval(heartbeatInterval);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#maxOperationTime}. */
    public Builder maxOperationTime(Duration maxOperationTime) {
      config.maxOperationTime(maxOperationTime);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#longestRetryChain}. */
    public Builder longestRetryChain(Duration longestRetryChain) {
      config.longestRetryChain(longestRetryChain);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#inFlightRetryAfter}. */
    public Builder inFlightRetryAfter(Duration inFlightRetryAfter) {
      config.inFlightRetryAfter(inFlightRetryAfter);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#clock}. */
    public Builder clock(InstantSource clock) {
      config.clock(clock);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#inFlightPolicy}. */
    public Builder inFlightPolicy(InFlightPolicy inFlightPolicy) {
      config.inFlightPolicy(inFlightPolicy);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#storedResponsePolicy}. */
    public Builder storedResponsePolicy(StoredResponsePolicy storedResponsePolicy) {
      config.storedResponsePolicy(storedResponsePolicy);
      return this;
    }

    /** See {@link IdempotencyConfig.Builder#listener}. */
    public Builder listener(IdempotencyListener listener) {
      config.listener(listener);
      return this;
    }

    /**
     * Validates and builds the engine.
     *
     * @throws IllegalArgumentException naming the setting, as {@link
     *     IdempotencyConfig.Builder#build()} does
     */
    public IdempotencyEngine build() {
      return new IdempotencyEngine(store, config.build());
    }
  }
}
