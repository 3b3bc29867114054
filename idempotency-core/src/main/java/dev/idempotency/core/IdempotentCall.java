package dev.idempotency.core;

import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
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
 *     Work.inOneTransaction(Connection.class, tx -> invoices.create(tx, event)));
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
 * <p>The result is stored as a response of status 200 whose body is the codec's bytes. Immutable
 * and thread-safe: define one per kind of work and share it.
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
   * Runs {@code work} at most once for {@code id} within the replay window and returns its result,
   * or the stored result of the call that ran it. Work in one transaction commits its writes with
   * the stored result ({@link Work#inOneTransaction}); stepped work records recovery points ({@link
   * Work#stepped}).
   *
   * @throws IdempotencyKeyReusedException if the key was used for another fingerprint
   * @throws IdempotencyKeyInFlightException if another call with the key is still running
   * @throws StoreUnavailableException if the store could not be reached; the work did not run
   * @throws LeaseLostException if the work ran but another owner took the key over before its
   *     result could be stored
   * @throws IdempotentWorkFailedException if the work threw a checked exception
   * @throws IdempotentResultNotStoredException if an earlier call's work ran under this key but its
   *     result could not be stored (the not-stored marker is replayed)
   * @throws IllegalStateException if the work runs in one transaction and the engine's store runs
   *     no business writes in its transactions
   */
  public R run(RecordId id, Fingerprint fingerprint, Work<R> work) {
    Objects.requireNonNull(work, "work");
    AtomicReference<@Nullable R> ran = new AtomicReference<>();
    Work<StoredResponse> encoded =
        work instanceof SteppedWork<R> stepped
            ? Work.stepped(execution -> encode(ran, stepped.operation().run(execution)))
            : ((InTransactionWork<?, R>) work).map(result -> encode(ran, result));
    Outcome outcome;
    try {
      outcome = engine.execute(id, fingerprint, encoded);
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

  private StoredResponse encode(AtomicReference<@Nullable R> ran, R result) throws Exception {
    Objects.requireNonNull(result, "the work of an IdempotentCall returned null");
    StoredResponse response = StoredResponse.of(RESULT_STATUS, codec.encode(result));
    ran.set(result); // the last run's: a transactional store may run the work again
    return response;
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
