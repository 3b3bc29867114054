package dev.idempotency.micrometer.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.TransactionalKeyStore;
import java.time.Duration;
import java.time.Instant;

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
  public Class<T> transactionType() {
    return transactional.transactionType();
  }

  @Override
  public <R> R inPhase(
      RecordId id,
      FenceToken fence,
      RecoveryPoint next,
      Instant now,
      Duration lease,
      TransactionalWork<T, R> work)
      throws Exception {
    return transactional.inPhase(id, fence, next, now, lease, work);
  }

  @Override
  public StoredResponse completeWith(
      RecordId id, FenceToken fence, Instant now, TransactionalWork<T, StoredResponse> work)
      throws Exception {
    return transactional.completeWith(id, fence, now, work);
  }

  @Override
  public OneTransactionOutcome claimAndComplete(ClaimRequest request, OneTransactionWork<T> work)
      throws Exception {
    return transactional.claimAndComplete(request, work);
  }
}
