package dev.idempotency.micrometer.internal;

import dev.idempotency.Execution;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.spi.TransactionalWork;

/**
 * {@link TimedKeyStore} over a {@link TransactionalKeyStore}, itself one, so that the engine still
 * finds the phases and the one-transaction run it checks for ({@code instanceof}). A claim inside
 * {@link #claimAndComplete} runs in the work's transaction and is not timed: its time is the
 * work's.
 *
 * @param <T> the store's transaction handle
 */
public final class TimedTransactionalKeyStore<T> extends TimedKeyStore
    implements TransactionalKeyStore<T> {
  private final TransactionalKeyStore<T> transactional;

  /** A decorator of {@code delegate} reporting to {@code timer}. */
  public TimedTransactionalKeyStore(TransactionalKeyStore<T> delegate, ClaimTimer timer) {
    super(delegate, timer);
    this.transactional = delegate;
  }

  @Override
  public <R> R inPhase(Execution execution, RecoveryPoint next, TransactionalWork<T, R> work)
      throws Exception {
    return transactional.inPhase(execution, next, work);
  }

  @Override
  public StoredResponse completeWith(Execution execution, TransactionalWork<T, StoredResponse> work)
      throws Exception {
    return transactional.completeWith(execution, work);
  }

  @Override
  public OneTransactionOutcome claimAndComplete(ClaimRequest request, OneTransactionWork<T> work)
      throws Exception {
    return transactional.claimAndComplete(request, work);
  }
}
