package dev.idempotency.core;

import dev.idempotency.Execution;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.StoreUnavailableException;
import dev.idempotency.spi.TransactionalKeyStore;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Work that is not an HTTP request (a message or webhook consumer, a scheduled job, a method),
 * guarded by an idempotency key, with a typed result: the first call with a key runs the work and
 * stores its result through a {@link ResultCodec}; a later call with the same key and fingerprint
 * returns the stored result without running it.
 *
 * <pre>{@code
 * IdempotentCall<Invoice> createInvoice = IdempotentCall.of(engine, invoiceCodec);
 * Invoice invoice = createInvoice.run(
 *     RecordId.of(event.accountId(), "invoice-" + event.id()),
 *     FingerprintBuilder.forPurpose("invoice/1").add(event.orderId()).add(event.amountCents()).build(),
 *     execution -> invoices.create(event));
 * }</pre>
 *
 * <p>{@link #run} answers as a method call does: the result (run now or replayed), else an
 * unchecked exception:
 *
 * <table>
 *   <caption>What {@code run} returns or throws, by {@link Outcome}</caption>
 *   <tr><th>outcome</th><th>{@code run}</th></tr>
 *   <tr><td>{@link Outcome.Executed}</td><td>the work's result (stored, unless the {@link
 *       StoredResponsePolicy} excluded it or the store failed while completing)</td></tr>
 *   <tr><td>{@link Outcome.Replayed}</td><td>the stored result, decoded</td></tr>
 *   <tr><td>{@link Outcome.Mismatch}</td><td>{@link IdempotencyKeyReusedException}</td></tr>
 *   <tr><td>{@link Outcome.InFlightConflict}</td><td>{@link IdempotencyKeyInFlightException}
 *       (also when interrupted while waiting, with the interrupt flag set again)</td></tr>
 *   <tr><td>{@link Outcome.StoreUnavailable}</td><td>its {@link StoreUnavailableException}; the
 *       work did not run</td></tr>
 *   <tr><td>the work threw</td><td>its unchecked exception as thrown, a checked one in {@link
 *       IdempotentWorkFailedException}; the key released or left in flight as {@link
 *       IdempotencyEngine#execute} does</td></tr>
 * </table>
 *
 * <p>{@link #attempt} returns the engine's five-case {@link Outcome} instead, for callers that
 * switch over it, and {@link #result} turns a settled outcome into the result. The result is stored
 * as a response of status 200 whose body is the codec's bytes. Immutable and thread-safe: define
 * one per kind of work and share it.
 *
 * @param <R> the result type
 */
public final class IdempotentCall<R> {
  private static final int RESULT_STATUS = 200;

  private final IdempotencyEngine engine;
  private final ResultCodec<R> codec;

  private IdempotentCall(IdempotencyEngine engine, ResultCodec<R> codec) {
    this.engine = engine;
    this.codec = codec;
  }

  /**
   * Work of result type {@code R} guarded by {@code engine}, its results stored with {@code codec}.
   */
  public static <R> IdempotentCall<R> of(IdempotencyEngine engine, ResultCodec<R> codec) {
    return new IdempotentCall<>(
        Objects.requireNonNull(engine, "engine"), Objects.requireNonNull(codec, "codec"));
  }

  /**
   * The work an {@link IdempotentCall} guards.
   *
   * @param <R> the result type
   */
  @FunctionalInterface
  public interface Work<R> {
    /**
     * Runs the work. A multi-step work checks {@link Execution#resumeFrom()} and records its phases
     * with {@link Execution#checkpoint}, as an {@link Operation} does.
     *
     * @param execution the claimed record, its fence, and where to resume
     * @return the result to store
     * @throws Exception when the work fails; the key is released when nothing had committed
     */
    R run(Execution execution) throws Exception;
  }

  /**
   * Runs {@code work} at most once for {@code id} within the replay window and returns its result,
   * or the stored result of the call that ran it.
   *
   * @throws IdempotencyKeyReusedException if the key was used for another fingerprint
   * @throws IdempotencyKeyInFlightException if another call with the key is still running
   * @throws StoreUnavailableException if the store could not be reached; the work did not run
   * @throws LeaseLostException if the work ran but another owner took the key over before its
   *     result could be stored
   * @throws IdempotentWorkFailedException if the work threw a checked exception
   * @throws IdempotentResultNotStoredException if an earlier call's work ran under this key but its
   *     result could not be stored (the not-stored marker is replayed)
   */
  public R run(RecordId id, Fingerprint fingerprint, Work<R> work) {
    AtomicReference<@Nullable R> ran = new AtomicReference<>();
    return settle(
        id, () -> engine.execute(id, fingerprint, execution -> run(work, execution, ran)), ran);
  }

  /**
   * {@link #run} that returns the engine's {@link Outcome} instead of throwing for the cases that
   * return no result; {@link #result} decodes an {@link Outcome.Executed} or {@link
   * Outcome.Replayed}.
   *
   * @throws OperationFailedException if the work threw (its cause)
   * @throws InterruptedException if interrupted while waiting on an in-flight key
   */
  public Outcome attempt(RecordId id, Fingerprint fingerprint, Work<R> work)
      throws OperationFailedException, InterruptedException {
    return engine.execute(
        id, fingerprint, execution -> run(work, execution, new AtomicReference<>()));
  }

  /**
   * Runs {@code work} with its result committed in one transaction with the work's writes, on a
   * store that runs business work in its transactions ({@code JdbcKeyStore}: {@code T} is {@code
   * java.sql.Connection}): in one transaction with the claim too when the store declares {@link
   * StoreCapability#ONE_TRANSACTION} ({@link IdempotencyEngine#executeInOneTransaction}), else
   * claimed first and completed with {@link Execution#completeWith}. The work must neither commit
   * nor roll back, call nothing outside the transaction, and may run again after a retryable abort
   * of the transaction. Answers as {@link #run}.
   *
   * @throws IllegalStateException if the engine's store runs no business work in its transactions
   */
  public <T> R runInTransaction(
      RecordId id, Fingerprint fingerprint, TransactionalWork<T, R> work) {
    AtomicReference<@Nullable R> ran = new AtomicReference<>();
    return settle(id, () -> attemptInTransaction(id, fingerprint, work, ran), ran);
  }

  /**
   * The result of a settled outcome: the work's, decoded from what was stored.
   *
   * @throws IdempotencyKeyReusedException for {@link Outcome.Mismatch}
   * @throws IdempotencyKeyInFlightException for {@link Outcome.InFlightConflict}
   * @throws StoreUnavailableException for {@link Outcome.StoreUnavailable}
   * @throws IdempotentResultNotStoredException for a replayed not-stored marker
   * @throws IllegalStateException if the stored response is not a result this class stored (the key
   *     of an HTTP request, say), or the codec cannot decode it
   */
  public R result(RecordId id, Outcome outcome) {
    return resultOf(id, outcome, null);
  }

  private <T> Outcome attemptInTransaction(
      RecordId id,
      Fingerprint fingerprint,
      TransactionalWork<T, R> work,
      AtomicReference<@Nullable R> ran)
      throws OperationFailedException, InterruptedException {
    TransactionalWork<T, StoredResponse> stored = tx -> encode(ran, work.run(tx));
    if (engine.store().capabilities().contains(StoreCapability.ONE_TRANSACTION)) {
      return engine.executeInOneTransaction(id, fingerprint, stored);
    }
    TransactionalKeyStore<T> store = engine.transactionalStore();
    return engine.execute(
        id, fingerprint, execution -> execution.completeWith(store.transactionType(), stored));
  }

  private StoredResponse run(Work<R> work, Execution execution, AtomicReference<@Nullable R> ran)
      throws Exception {
    return encode(ran, work.run(execution));
  }

  private StoredResponse encode(AtomicReference<@Nullable R> ran, R result) throws Exception {
    Objects.requireNonNull(result, "the work of an IdempotentCall returned null");
    StoredResponse response = StoredResponse.of(RESULT_STATUS, codec.encode(result));
    ran.set(result); // the last run's: a transactional store may run the work again
    return response;
  }

  /** What the engine did, as the work's result or an exception. */
  @FunctionalInterface
  private interface Attempt {
    Outcome run() throws OperationFailedException, InterruptedException;
  }

  private R settle(RecordId id, Attempt attempt, AtomicReference<@Nullable R> ran) {
    Outcome outcome;
    try {
      outcome = attempt.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IdempotencyKeyInFlightException(id, engine.config().inFlightRetryAfter());
    } catch (OperationFailedException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException unchecked) {
        throw unchecked;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IdempotentWorkFailedException(e);
    }
    return resultOf(id, outcome, ran.get());
  }

  private R resultOf(RecordId id, Outcome outcome, @Nullable R ran) {
    if (outcome instanceof Outcome.Executed executed) {
      return ran != null ? ran : decode(id, executed.response());
    }
    if (outcome instanceof Outcome.Replayed replayed) {
      return decode(id, replayed.response());
    }
    if (outcome instanceof Outcome.Mismatch mismatch) {
      throw new IdempotencyKeyReusedException(id, mismatch.existingState());
    }
    if (outcome instanceof Outcome.InFlightConflict inFlight) {
      throw new IdempotencyKeyInFlightException(id, inFlight.retryAfter());
    }
    throw ((Outcome.StoreUnavailable) outcome).cause();
  }

  private R decode(RecordId id, StoredResponse response) {
    Optional<String> notStored = response.notStoredReason();
    if (notStored.isPresent()) {
      throw new IdempotentResultNotStoredException(id, notStored.get());
    }
    if (response.status() != RESULT_STATUS || !response.headers().isEmpty()) {
      throw new IllegalStateException(
          "the record "
              + id
              + " holds a response of status "
              + response.status()
              + ", not a result an IdempotentCall stored: is its key also used by an HTTP request?");
    }
    try {
      return codec.decode(response.body());
    } catch (Exception e) {
      throw new IllegalStateException(
          "the codec cannot decode the result stored for " + id + ": " + e.getMessage(), e);
    }
  }
}
