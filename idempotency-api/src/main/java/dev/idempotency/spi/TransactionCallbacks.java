package dev.idempotency.spi;

import dev.idempotency.Execution;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.util.Objects;

/**
 * What a {@link TransactionalKeyStore} tells the engine about the transactions it runs for an
 * {@link Execution}: that one is about to open, that it closed, and what it committed. The engine
 * needs to know, so that its lease renewals stay out of an open phase's way, so that a phase's
 * commit counts as a renewal, and so that a completion the store committed is not stored a second
 * time.
 *
 * <p>Application code never calls these: it sees only {@link Execution}. The engine's executions
 * implement this interface, and a store reaches it through {@link #of(Execution)}. So does an
 * integration that completes a record itself (the HTTP layer storing the marker of an oversized
 * response). An {@code Execution} that wraps the engine's must implement this interface too and
 * forward every call.
 *
 * <p>Implementations are thread-safe.
 */
public interface TransactionCallbacks {

  /**
   * The callbacks of {@code execution}.
   *
   * @param execution an execution the engine made, or one that wraps it and forwards these
   *     callbacks
   * @return {@code execution} itself, seen as its callbacks
   * @throws IllegalArgumentException if {@code execution} does not implement this interface: a
   *     store that went on would let the engine renew the lease inside the transaction and store a
   *     committed completion again
   */
  static TransactionCallbacks of(Execution execution) {
    Objects.requireNonNull(execution, "execution");
    if (execution instanceof TransactionCallbacks callbacks) {
      return callbacks;
    }
    throw new IllegalArgumentException(
        "execution "
            + execution.getClass().getName()
            + " does not implement "
            + TransactionCallbacks.class.getName()
            + ": pass the Execution the engine handed to the operation, or make "
            + "a wrapping Execution forward these callbacks");
  }

  /**
   * The store is about to open a transaction that ends in a fenced write of this record ({@code
   * inPhase}, {@code completeWith}); returns once no renewal of the lease is under way. Until
   * {@link #phaseClosed()} the engine does not renew the lease: a renewal committed while the
   * transaction is open would make its fenced write fail at {@code REPEATABLE READ} or {@code
   * SERIALIZABLE} (a concurrent update of the same row), and with a database clock fixed per
   * transaction (H2) would be overwritten by an older lease. The transaction's own fenced write
   * renews the lease when it commits.
   */
  void phaseOpening();

  /**
   * The transaction announced by {@link #phaseOpening()} committed or rolled back, so the engine
   * renews the lease again. Called once for each {@link #phaseOpening()}, in a {@code finally}.
   */
  void phaseClosed();

  /**
   * The store committed a phase ending at {@code point} under the execution's fence; called once,
   * after the commit, and never for a transaction that rolled back.
   *
   * @param point the recovery point the committed phase reached
   */
  void phaseCommitted(RecoveryPoint point);

  /**
   * The store (or an integration) committed the completion with {@code response} under the
   * execution's fence, so the engine does not store it a second time and stops renewing the lease;
   * called once, after the commit, and never for a transaction that rolled back.
   *
   * @param response the response committed as the completion
   */
  void completionCommitted(StoredResponse response);
}
