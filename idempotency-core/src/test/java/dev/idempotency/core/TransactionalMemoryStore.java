package dev.idempotency.core;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.testing.DelegatingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * A store whose "transactions" run the work, then the fenced write, on the store it wraps: enough
 * for the engine's side of {@code Execution.checkpoint} with a transaction and {@code completeWith}
 * (no rollback; the TCK proves the stores' transactions).
 */
class TransactionalMemoryStore extends DelegatingStore implements TransactionalKeyStore<Object> {
  TransactionalMemoryStore(KeyStore delegate) {
    super(delegate);
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return Set.of(StoreCapability.TRANSACTIONAL);
  }

  @Override
  public Class<Object> transactionType() {
    return Object.class;
  }

  @Override
  public <R> R inPhase(
      RecordId id,
      FenceToken fence,
      RecoveryPoint next,
      Instant now,
      Duration lease,
      TransactionalWork<Object, R> work)
      throws Exception {
    R result = work.run(new Object());
    checkpoint(id, fence, next, now, lease);
    return result;
  }

  @Override
  public StoredResponse completeWith(
      RecordId id, FenceToken fence, Instant now, TransactionalWork<Object, StoredResponse> work)
      throws Exception {
    StoredResponse response = work.run(new Object());
    complete(id, fence, response, now);
    return response;
  }
}
