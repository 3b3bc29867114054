package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.Execution;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Work#inOneTransaction} on a store that runs business writes in its transactions but cannot
 * claim inside them ({@code TRANSACTIONAL} without {@code ONE_TRANSACTION}): the claim commits on
 * its own, then the work's writes commit with the completion ({@link Execution#completeWith}), so
 * neither can be lost without the other. It keeps the promises of one transaction that the store
 * allows:
 *
 * <ul>
 *   <li>an answer to be released (excluded by the {@link StoredResponsePolicy}, or {@link
 *       Answer#released}) rolls the work's writes back, and the key is released;
 *   <li>a record a stepped request left at a recovery point is not run from the start: the work
 *       does not run, and the record stays in flight for a retry of the stepped work or the {@link
 *       Completer} ({@link Resumable}, which the engine answers as in flight).
 * </ul>
 *
 * A crash between the claim and the commit leaves the key in flight, without the work's writes,
 * until the lease ends; a retry then runs it as a first attempt.
 *
 * @param <T> the store's transaction handle
 */
final class ClaimFirstTransaction<T> implements Operation<Answer> {
  private final InTransactionWork<T, ? extends Answer> work;
  private final StoredResponsePolicy policy;

  ClaimFirstTransaction(InTransactionWork<T, ? extends Answer> work, StoredResponsePolicy policy) {
    this.work = work;
    this.policy = policy;
  }

  @Override
  public Answer run(Execution execution) throws Exception {
    Optional<RecoveryPoint> point = execution.resumeFrom();
    if (point.isPresent()) {
      throw new Resumable(point.get());
    }
    try {
      // the engine keeps the completion that committed, and answers with what it sent
      return execution.completeWith(
          work.transactionType(),
          tx -> {
            Answer answer =
                Objects.requireNonNull(
                    work.work().run(tx), "the work returned null instead of an answer");
            Disposition disposition = Disposition.of(answer, policy);
            String release = disposition.release();
            if (release != null) {
              throw new NotStored(disposition.sent(), release); // rolls the writes back
            }
            return Answer.storedAs(
                disposition.sent(),
                Objects.requireNonNull(disposition.stored(), "not released, so stored"));
          });
    } catch (NotStored excluded) {
      // nothing committed but the claim: the engine releases the key
      return Answer.released(excluded.sent, excluded.reason);
    }
  }

  /** The record is at a recovery point that work in one transaction cannot resume. */
  static final class Resumable extends Exception {
    private static final long serialVersionUID = 1L;

    Resumable(RecoveryPoint point) {
      super(
          "the record is in flight at the recovery point "
              + point.name()
              + ", left by a request of several steps; work in one transaction cannot resume it",
          null,
          false,
          false);
    }
  }

  /** An answer to release, thrown out of the work so that the store rolls its writes back. */
  private static final class NotStored extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient StoredResponse sent;
    private final String reason;

    NotStored(StoredResponse sent, String reason) {
      super(reason, null, false, false);
      this.sent = sent;
      this.reason = reason;
    }
  }
}
