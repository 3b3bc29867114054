package dev.idempotency.tck.mutants;

import dev.idempotency.Execution;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionCallbacks;
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

  /** Tells the execution of the commit before committing (rule 10.6). */
  public static final class CommitReportedEarly extends TransactionalMapKeyStore {
    @Override
    protected <R> void commitAndReport(
        Tx tx, R result, Consumer<R> fencedWrite, Consumer<R> reportCommitted) {
      reportCommitted.accept(result);
      commit(tx, result, fencedWrite);
    }
  }

  /**
   * Tells the execution of a commit also when the fenced write was refused and the transaction
   * rolled back (10.6).
   */
  public static final class CommitReportedOnRollback extends TransactionalMapKeyStore {
    @Override
    protected <R> void commitAndReport(
        Tx tx, R result, Consumer<R> fencedWrite, Consumer<R> reportCommitted) {
      try {
        commit(tx, result, fencedWrite);
      } finally {
        reportCommitted.accept(result);
      }
    }
  }

  /**
   * Calls phaseClosed only after a commit, so a failed phase leaves the engine's renewals stopped
   * (rule 10.6).
   */
  public static final class NotClosedOnFailure extends TransactionalMapKeyStore {
    @Override
    protected void closed(TransactionCallbacks callbacks, boolean committed) {
      if (committed) {
        callbacks.phaseClosed();
      }
    }
  }

  /** Runs the work for an execution without callbacks, telling nobody (rule 10.7). */
  public static final class ForeignExecutionAccepted extends TransactionalMapKeyStore {
    @Override
    protected TransactionCallbacks callbacks(Execution execution) {
      Objects.requireNonNull(execution, "execution");
      return execution instanceof TransactionCallbacks c
          ? c
          : new TransactionCallbacks() {
            @Override
            public void phaseOpening() {}

            @Override
            public void phaseClosed() {}

            @Override
            public void phaseCommitted(RecoveryPoint point) {}

            @Override
            public void completionCommitted(StoredResponse response) {}
          };
    }
  }

  /** A phase's fenced write renews the lease but records no recovery point (rule 10.2). */
  public static final class PhaseWithoutCheckpoint extends TransactionalMapKeyStore {
    @Override
    protected void phaseWrite(Execution execution, RecoveryPoint next) {
      heartbeat(execution.recordId(), execution.fence(), execution.now(), execution.lease());
    }
  }

  /**
   * A phase's fenced write records the recovery point but leaves the lease where the claim put it
   * (rule 10.2).
   */
  public static final class PhaseKeepsOldLease extends TransactionalMapKeyStore {
    @Override
    protected void phaseWrite(Execution execution, RecoveryPoint next) {
      Instant leaseEnd =
          lookup(execution.recordId()).flatMap(RecordSnapshot::leaseExpiresAt).orElseThrow();
      checkpoint(
          execution.recordId(),
          execution.fence(),
          next,
          leaseEnd.minus(execution.lease()),
          execution.lease());
    }
  }

  /** Tells the engine the phase closed before its commit, when the work has run (rule 10.6). */
  public static final class ClosedBeforeCommit extends TransactionalMapKeyStore {
    @Override
    protected void beforeCommit(TransactionCallbacks callbacks) {
      callbacks.phaseClosed();
    }

    @Override
    protected void closed(TransactionCallbacks callbacks, boolean committed) {
      if (!committed) {
        callbacks.phaseClosed();
      }
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
          StoreCapability.ONE_TRANSACTION);
    }
  }
}
