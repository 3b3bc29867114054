package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.core.internal.Events;
import dev.idempotency.core.internal.Heartbeats;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.event.IdempotencyListener;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Drives the three-state machine of idempotency keys over any {@link KeyStore}: claims the key,
 * runs the operation while heartbeating its lease, stores the result under the fence, and returns
 * the {@link Outcome}.
 *
 * <pre>{@code
 * IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
 * Outcome outcome = engine.execute(RecordId.of(accountId, key), fingerprint,
 *     Work.stepped(execution -> charge(request)));
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
 *   <li>It returned an {@link Answer}: its stored form is stored under the fence ({@link
 *       Outcome.Executed}) unless the {@link StoredResponsePolicy} excludes it or it asks to be
 *       released, in which case the key is released (after a committed recovery point an excluded
 *       response is stored all the same, and an answer that asks to be released leaves the key in
 *       flight at that point, as a failure does). Once the work has run its outcome is not lost to
 *       the store: a response larger than the store keeps ({@link KeyStore#maxResponseBytes()}) or
 *       one the store refuses is replaced by the small not-stored marker, which a retry replays
 *       instead of running the work again; a store that cannot be reached is asked again, with
 *       backoff, while the lease is renewed, until the lease runs short (then the record stays in
 *       flight, and the caller still gets its response). If another owner took the key over
 *       meanwhile, the store refuses the write and {@link LeaseLostException} is thrown.
 *   <li>It threw: the key is released when no phase had committed (a retry runs anew), else left in
 *       flight for a retry or the {@link Completer} to resume; {@link OperationFailedException} is
 *       thrown.
 * </ol>
 *
 * <p>Thread-safe; one engine serves the whole application. {@link #close()} stops its heartbeat
 * threads.
 */
public final class IdempotencyEngine implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

  private final KeyStore store;
  private final IdempotencyConfig config;
  private final IdempotencyListener listener;
  private final Heartbeats heartbeats;
  private final ClaimAnswers answers;
  private final SteppedRuns steppedRuns;
  private volatile boolean closed;

  private IdempotencyEngine(KeyStore store, IdempotencyConfig config) {
    this.store = store;
    this.config = config;
    this.listener = config.listener();
    this.heartbeats =
        new Heartbeats(
            store,
            config.clock(),
            config.heartbeatInterval(),
            config.lease(),
            config.leaseSafetyMargin(),
            config.maxOperationTime(),
            this::publish);
    this.answers = new ClaimAnswers(config, this::publish);
    this.steppedRuns = new SteppedRuns(store, config, heartbeats, answers, this::publish);
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
   * Runs {@code work} at most once for the record {@code id} within the replay window, and returns
   * what happened: in one transaction with the claim and the stored answer ({@link
   * Work#inOneTransaction}), or stepped, under a committed claim whose lease is renewed ({@link
   * Work#stepped}). The work's {@link Answer} says what its caller gets and what is stored.
   *
   * <pre>{@code
   * Outcome outcome = engine.execute(id, fingerprint, Work.inOneTransaction(Connection.class, tx -> {
   *   insertOrder(tx, order);                           // the application's statements only
   *   return StoredResponse.of(201, Map.of(), body);
   * }));
   * }</pre>
   *
   * <p>In one transaction:
   *
   * <ul>
   *   <li>No lease is renewed: nobody else can see the record before it commits complete. A
   *       concurrent duplicate waits on the record's lock until this transaction ends (bounded by
   *       the store's lock or statement timeout, then {@link Outcome.InFlightConflict}), and then
   *       replays its answer; the {@link InFlightPolicy} applies to that answer as to any other.
   *   <li>Work that throws rolls everything back, the claim included: the key stays absent and a
   *       retry runs as a first attempt ({@link OperationFailedException#keyReleased()} is true).
   *       So does a crash of the process before the commit.
   *   <li>An answer to be released (one the {@link StoredResponsePolicy} excludes, or {@link
   *       Answer#released}) rolls the whole transaction back too, the work's writes included:
   *       {@link Outcome.Executed} with {@code stored} false.
   *   <li>A record left in flight by stepped work with an expired lease is taken over when it has
   *       no recovery point; with one, one transaction cannot resume it, nothing is written, and
   *       the answer is {@link Outcome.InFlightConflict} (logged as a warning) until a retry with
   *       the stepped work or the {@link Completer} resumes it.
   *   <li>On a store that declares {@link StoreCapability#TRANSACTIONAL} but not {@link
   *       StoreCapability#ONE_TRANSACTION} the claim commits first, and the work's writes commit
   *       with the completion ({@link dev.idempotency.Execution#completeWith}).
   * </ul>
   *
   * <p>Events are the same in both lifecycles: {@code Claimed} or {@code TakenOver} as the work
   * starts, {@code Completed} after the answer is stored, {@code Released}, {@code Replayed},
   * {@code Mismatched}, {@code InFlightConflict}, {@code StoreUnavailable}. In one transaction a
   * claim is not always followed by {@code Completed} or {@code Released}: a run the store repeats
   * after a retryable abort publishes {@code Claimed} again, and a commit that fails publishes
   * {@code StoreUnavailable} although the work ran (its writes rolled back with the claim).
   *
   * @param id the scope and key of the request
   * @param fingerprint the fingerprint of the request
   * @param work the work the key guards
   * @return the outcome; never null
   * @throws OperationFailedException if the work threw (its cause); the key was released or left in
   *     flight as {@link OperationFailedException#keyReleased()} says: released only when nothing
   *     had committed and the failure was not the store's (a {@link StoreUnavailableException} may
   *     hide a committed checkpoint)
   * @throws LeaseLostException if stepped work ran but another owner took the key over before its
   *     answer could be stored: the lease expired while it ran (heartbeats failed, or the process
   *     was paused)
   * @throws InterruptedException if the thread was interrupted while waiting on an in-flight key
   * @throws IllegalStateException if the engine was closed, or the work runs in one transaction and
   *     the store runs no business writes in its transactions; nothing was claimed
   * @throws IllegalArgumentException if the work runs in one transaction on another handle than the
   *     store's {@link TransactionalKeyStore#transactionType()}; nothing was claimed
   */
  public Outcome execute(RecordId id, Fingerprint fingerprint, Work<? extends Answer> work)
      throws OperationFailedException, InterruptedException {
    return run(id, fingerprint, work, null);
  }

  /**
   * {@link #execute(RecordId, Fingerprint, Work)} whose wait on an in-flight key {@code
   * cancellation} can end from another thread without an interrupt, which could land in a store
   * call (see {@link WaitCancellation}): the wait ends before its next claim, with {@link
   * Outcome.InFlightConflict}. It does not stop work that has started.
   *
   * @param id the scope and key of the request
   * @param fingerprint the fingerprint of the request
   * @param work the work the key guards
   * @param cancellation ends the wait
   * @return the outcome; never null
   * @throws OperationFailedException as {@link #execute(RecordId, Fingerprint, Work)}
   * @throws InterruptedException if the thread was interrupted while waiting on an in-flight key
   */
  public Outcome execute(
      RecordId id,
      Fingerprint fingerprint,
      Work<? extends Answer> work,
      WaitCancellation cancellation)
      throws OperationFailedException, InterruptedException {
    return run(id, fingerprint, work, Objects.requireNonNull(cancellation, "cancellation"));
  }

  private Outcome run(
      RecordId id,
      Fingerprint fingerprint,
      Work<? extends Answer> work,
      @Nullable WaitCancellation cancellation)
      throws OperationFailedException, InterruptedException {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(work, "work");
    if (closed) {
      throw new IllegalStateException("the engine is closed: no lease it claimed would be renewed");
    }
    if (work instanceof SteppedWork<? extends Answer> stepped) {
      return stepped(id, fingerprint, stepped.operation(), cancellation);
    }
    return inOneTransaction(
        id, fingerprint, (InTransactionWork<?, ? extends Answer>) work, cancellation);
  }

  private Outcome stepped(
      RecordId id,
      Fingerprint fingerprint,
      Operation<? extends Answer> operation,
      @Nullable WaitCancellation cancellation)
      throws OperationFailedException, InterruptedException {
    return answers.untilSettled(
        id, cancellation, now -> steppedRuns.attempt(id, fingerprint, now, operation));
  }

  private <T> Outcome inOneTransaction(
      RecordId id,
      Fingerprint fingerprint,
      InTransactionWork<T, ? extends Answer> work,
      @Nullable WaitCancellation cancellation)
      throws OperationFailedException, InterruptedException {
    TransactionalKeyStore<T> transactional = transactionalStore(work.transactionType());
    if (!store.capabilities().contains(StoreCapability.ONE_TRANSACTION)) {
      try {
        return stepped(
            id,
            fingerprint,
            new ClaimFirstTransaction<>(work, config.storedResponsePolicy()),
            cancellation);
      } catch (OperationFailedException e) {
        if (e.getCause() instanceof ClaimFirstTransaction.Resumable resumable) {
          LOG.log(
              System.Logger.Level.WARNING,
              () ->
                  id
                      + ": "
                      + resumable.getMessage()
                      + "; it is answered as in flight until a"
                      + " retry of the stepped work, or the completer, resumes it");
          return new Outcome.InFlightConflict(config.inFlightRetryAfter());
        }
        throw e;
      }
    }
    OneTransactionRun<T> run =
        new OneTransactionRun<>(
            this, answers, transactional, id, work.work(), config.storedResponsePolicy());
    return answers.untilSettled(
        id,
        cancellation,
        now -> {
          ClaimRequest request =
              new ClaimRequest(id, fingerprint, now, config.lease(), config.replayWindow());
          return run.attempt(request);
        });
  }

  /**
   * The store as the {@link TransactionalKeyStore} of {@code type}'s handles.
   *
   * @throws IllegalStateException if it runs no business writes in its transactions
   * @throws IllegalArgumentException if its handles are not {@code type}'s
   */
  private <T> TransactionalKeyStore<T> transactionalStore(Class<T> type) {
    if (!(store instanceof TransactionalKeyStore<?> transactional)
        || !store.capabilities().contains(StoreCapability.TRANSACTIONAL)) {
      throw new IllegalStateException(
          "the store "
              + store
              + " does not declare StoreCapability.TRANSACTIONAL: it runs no business writes in its"
              + " transactions (JdbcKeyStore does), so Work.inOneTransaction cannot run on it; use"
              + " Work.stepped");
    }
    if (!type.isAssignableFrom(transactional.transactionType())) {
      throw new IllegalArgumentException(
          "the work runs on a "
              + type.getName()
              + ", but the store "
              + store
              + " hands its work a "
              + transactional.transactionType().getName());
    }
    return OneTransactionRun.typed(transactional);
  }

  /**
   * Resumes {@code listed}, a record {@link KeyStore#findAbandoned} returned, with {@code
   * operation}: for the {@link Completer}, as {@link SteppedRuns#resume} says.
   *
   * @return the outcome, or empty when the record was not the listed one any more
   * @throws IllegalStateException if the engine was closed
   */
  Optional<Outcome> resume(RecordSnapshot listed, Operation<? extends Answer> operation)
      throws OperationFailedException {
    if (closed) {
      throw new IllegalStateException("the engine is closed: no lease it claimed would be renewed");
    }
    return steppedRuns.resume(listed, operation);
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
   * Builds an {@link IdempotencyEngine}: a store and its {@link IdempotencyConfig} (every default
   * unless {@link #config} is given one; its settings are {@link IdempotencyConfig#builder()}'s).
   * Not thread-safe.
   */
  public static final class Builder {
    private final KeyStore store;
    private IdempotencyConfig config = IdempotencyConfig.ofDefaults();

    private Builder(KeyStore store) {
      this.store = store;
    }

    /** The engine's configuration (default {@link IdempotencyConfig#ofDefaults()}). */
    public Builder config(IdempotencyConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** Builds the engine over the store, with the configuration. */
    public IdempotencyEngine build() {
      return new IdempotencyEngine(store, config);
    }
  }
}
