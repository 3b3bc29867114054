package dev.idempotency.tck.mutants;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Deliberately broken transactional stores: each is {@link TransactionalMapKeyStore} with one
 * mutation, the kind of bug a store's transaction loop has. The self-test requires the
 * transactional contract to fail each one on the rule it breaks, with that rule named.
 */
public final class TransactionalMutants {
  private TransactionalMutants() {}

  /**
   * Applies the work's writes before the fenced write, so a stale fence leaves them committed (rule
   * 10.4).
   */
  public static final class StaleFenceCommitsWork extends TransactionalMapKeyStore {
    @Override
    protected <R> void commit(Tx tx, R result, Consumer<R> fencedWrite) {
      synchronized (backend.lock) {
        apply(tx);
        fencedWrite.accept(result);
      }
    }
  }

  /** Commits a phase's checkpoint although its work threw (rule 10.3). */
  public static final class CheckpointDespiteFailedWork extends TransactionalMapKeyStore {
    @Override
    protected <R> void workFailed(Consumer<R> fencedWrite) {
      try {
        fencedWrite.accept(
            null); // a phase's checkpoint needs no result; a completion's refuses a null response
      } catch (RuntimeException ignored) {
        // the completion: nothing written
      }
    }
  }

  /**
   * Runs the work again in the aborted transaction, whose first run's writes are still buffered
   * (rule 10.5).
   */
  public static final class ReRunKeepsEarlierWrites extends TransactionalMapKeyStore {
    @Override
    protected Tx nextTx(Tx previous) {
      return previous == null ? new Tx() : previous.reopened();
    }
  }

  /** Declares no transaction type (rule 10.6). */
  public static final class NoTransactionType extends TransactionalMapKeyStore {
    @Override
    @SuppressWarnings("NullAway") // the mutation: null where the SPI promises a class
    public Class<Tx> transactionType() {
      return null;
    }
  }

  /** Runs the work before checking its arguments, so a null one fails after it ran (rule 10.7). */
  public static final class NullsRefusedLate extends TransactionalMapKeyStore {
    @Override
    protected void refuseNulls(Object... arguments) {}
  }

  /** A phase's fenced write renews the lease but records no recovery point (rule 10.2). */
  public static final class PhaseWithoutCheckpoint extends TransactionalMapKeyStore {
    @Override
    protected void phaseWrite(
        RecordId id, FenceToken fence, RecoveryPoint next, Instant now, Duration lease) {
      heartbeat(id, fence, now, lease);
    }
  }

  /**
   * A phase's fenced write records the recovery point but leaves the lease where the claim put it
   * (rule 10.2).
   */
  public static final class PhaseKeepsOldLease extends TransactionalMapKeyStore {
    @Override
    protected void phaseWrite(
        RecordId id, FenceToken fence, RecoveryPoint next, Instant now, Duration lease) {
      Instant leaseEnd = lookup(id).flatMap(RecordSnapshot::leaseExpiresAt).orElseThrow();
      checkpoint(id, fence, next, leaseEnd.minus(lease), lease);
    }
  }

  /** Commits the fenced write and drops the work's writes (rules 10.1, 10.2). */
  public static final class WorkDropped extends TransactionalMapKeyStore {
    @Override
    protected void apply(Tx tx) {}
  }

  /** Implements TransactionalKeyStore but does not declare TRANSACTIONAL (rule 10.8). */
  public static final class Undeclared extends TransactionalMapKeyStore {
    @Override
    public Set<StoreCapability> capabilities() {
      return Set.of(StoreCapability.ONE_TRANSACTION);
    }
  }

  /**
   * claimAndComplete as two commits: the claim commits on its own, then the work and the completion
   * (releasing the key when the work throws), so the claim is visible while the work runs (rule
   * 10.9).
   */
  public static final class ClaimCommittedSeparately extends TransactionalMapKeyStore {
    @Override
    public OneTransactionOutcome claimAndComplete(ClaimRequest request, OneTransactionWork<Tx> work)
        throws Exception {
      ClaimOutcome claim = claim(request);
      if (!(claim instanceof ClaimOutcome.Claimed won)) {
        return new OneTransactionOutcome.NotRun(claim);
      }
      Tx tx = new Tx();
      StoredResponse response;
      try {
        response = work.run(tx, won);
      } catch (Exception e) {
        release(request.id(), won.fence(), request.now());
        throw e;
      }
      synchronized (backend.lock) {
        complete(request.id(), won.fence(), response, request.now());
        apply(tx);
      }
      return new OneTransactionOutcome.Committed(won, response);
    }
  }

  /** Runs the work on a takeover that should resume from a recovery point (rule 10.12). */
  public static final class RecoveryPointIgnored extends TransactionalMapKeyStore {
    @Override
    protected Optional<RecoveryPoint> toResume(ClaimOutcome.Claimed won) {
      return Optional.empty();
    }
  }

  /**
   * Decides the claim without the row lock, so concurrent requests each decide on the record as it
   * was before any of them committed (rule 10.13).
   */
  public static final class NoRowLock extends TransactionalMapKeyStore {
    @Override
    protected void lockRow(Object key) {}
  }

  /** Not a mutant: the correct store on the system clock, for the contract's real-time path. */
  public static final class ServerClock extends TransactionalMapKeyStore {
    @Override
    protected Instant time(Instant given) {
      Objects.requireNonNull(given, "now");
      return Instant.now();
    }

    @Override
    public Set<StoreCapability> capabilities() {
      return Set.of(
          StoreCapability.SERVER_CLOCK,
          StoreCapability.TRANSACTIONAL,
          StoreCapability.ONE_TRANSACTION,
          StoreCapability.LISTING);
    }
  }
}
