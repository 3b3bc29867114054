package dev.idempotency.tck.mutants;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A deliberately plain, correct transactional store: {@link MapKeyStore} plus a business table of
 * markers, written straight from {@link TransactionalKeyStore}'s javadoc. The work writes into a
 * {@link Tx} that buffers its writes; the commit applies them together with the fenced write, under
 * the store's one lock, or, if the fenced write is refused, not at all. It is the control of the
 * transactional self-test and the base of its mutants, each of which overrides one hook to break
 * one rule.
 */
public class TransactionalMapKeyStore extends MapKeyStore
    implements TransactionalKeyStore<TransactionalMapKeyStore.Tx> {
  /** How often a transaction aborted retryably runs again; after that the abort is the caller's. */
  static final int MAX_ATTEMPTS = 3;

  /** The business table: every marker committed, in commit order; guarded by the backend's lock. */
  private final List<String> table = new ArrayList<>();

  /**
   * The transaction handle the work gets: it buffers the work's writes until the store commits
   * them.
   */
  public static final class Tx {
    private final List<String> writes = new ArrayList<>();
    private boolean aborted;

    /** Writes {@code marker} into the business table, once this transaction commits. */
    public void write(String marker) {
      writes.add(Objects.requireNonNull(marker, "marker"));
    }

    /**
     * Dooms this transaction as a serialization failure would: the store rolls it back and runs the
     * work again.
     */
    public void abortRetryably() {
      aborted = true;
    }

    /** This transaction with its writes kept, for a mutant that reuses it for the next attempt. */
    Tx reopened() {
      aborted = false;
      return this;
    }
  }

  /** A store with an empty table. */
  public TransactionalMapKeyStore() {}

  /** The markers committed so far, in commit order, as a read outside any transaction sees them. */
  public List<String> committedMarkers() {
    synchronized (backend.lock) {
      return List.copyOf(table);
    }
  }

  @Override
  public Class<Tx> transactionType() {
    return Tx.class;
  }

  @Override
  public <R> R inPhase(
      RecordId id,
      FenceToken fence,
      RecoveryPoint next,
      Instant now,
      Duration lease,
      TransactionalWork<Tx, R> work)
      throws Exception {
    refuseNulls(id, fence, now, next, lease, work);
    return transaction(work, r -> phaseWrite(id, fence, next, now, lease));
  }

  @Override
  public StoredResponse completeWith(
      RecordId id, FenceToken fence, Instant now, TransactionalWork<Tx, StoredResponse> work)
      throws Exception {
    refuseNulls(id, fence, now, work);
    return transaction(
        work, r -> complete(id, fence, Objects.requireNonNull(r, "the work's response"), now));
  }

  /** Refuses a null argument before any work runs (rule 10.7). */
  protected void refuseNulls(Object... arguments) {
    for (Object argument : arguments) {
      Objects.requireNonNull(argument, "an argument of inPhase or completeWith");
    }
  }

  /** The fenced write of a phase: its checkpoint, from the owner's time and lease. */
  protected void phaseWrite(
      RecordId id, FenceToken fence, RecoveryPoint next, Instant now, Duration lease) {
    checkpoint(id, fence, next, now, lease);
  }

  private <R> R transaction(TransactionalWork<Tx, R> work, Consumer<R> fencedWrite)
      throws Exception {
    Tx tx = null;
    for (int attempt = 1; ; attempt++) {
      tx = nextTx(tx);
      R result;
      try {
        result = work.run(tx);
      } catch (Exception e) {
        workFailed(fencedWrite);
        throw e;
      }
      if (tx.aborted) {
        if (attempt < MAX_ATTEMPTS) {
          continue;
        }
        throw new IllegalStateException("the transaction aborted " + attempt + " times in a row");
      }
      commit(tx, result, fencedWrite);
      return result;
    }
  }

  /** The transaction of the next attempt; {@code previous} (null for the first) was rolled back. */
  protected Tx nextTx(Tx previous) {
    return new Tx();
  }

  /** Called when the work threw: the transaction rolls back, so nothing is written. */
  protected <R> void workFailed(Consumer<R> fencedWrite) {}

  /**
   * The commit: the fenced write first, which throws {@link dev.idempotency.LeaseLostException} and
   * changes nothing when the fence is stale, then the work's writes, all under the lock, so that no
   * reader sees one without the other.
   */
  protected <R> void commit(Tx tx, R result, Consumer<R> fencedWrite) {
    synchronized (backend.lock) {
      fencedWrite.accept(result);
      apply(tx);
    }
  }

  /** Applies the work's writes to the business table; called under the lock. */
  protected void apply(Tx tx) {
    table.addAll(tx.writes);
  }

  /**
   * The claim, the work and the completion under the record's row lock: the claim is decided on the
   * committed record and put back at once (nobody sees it), the work runs with its own {@link Tx},
   * and the commit installs the claim, completes it and applies the work's writes under the store's
   * one lock. Claims and fenced writes of other threads wait for the row lock meanwhile; one that
   * waits longer than {@link #ROW_LOCK_WAIT} ends, as a database's lock timeout does.
   */
  @Override
  public OneTransactionOutcome claimAndComplete(ClaimRequest request, OneTransactionWork<Tx> work)
      throws Exception {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(work, "work");
    Object key = key(request.id());
    synchronized (backend.lock) {
      try {
        lockRow(key);
      } catch (StoreUnavailableException timedOut) {
        return new OneTransactionOutcome.NotRun(new ClaimOutcome.InFlight(request.lease()));
      }
    }
    try {
      for (int attempt = 1; ; attempt++) {
        ClaimOutcome decision;
        Rec claimed;
        FenceToken generation;
        synchronized (backend.lock) {
          Rec before = backend.records.get(key);
          FenceToken generationBefore = backend.generations.get(key);
          decision = decide(request, before);
          claimed = backend.records.get(key);
          generation = backend.generations.get(key);
          // uncommitted: the record reads as it was until the commit
          putBack(key, before, generationBefore);
        }
        if (!(decision instanceof ClaimOutcome.Claimed won)) {
          return new OneTransactionOutcome.NotRun(decision);
        }
        Optional<RecoveryPoint> toResume = toResume(won);
        if (toResume.isPresent()) {
          return new OneTransactionOutcome.NeedsResumption(toResume.get());
        }
        Tx tx = new Tx();
        StoredResponse response =
            Objects.requireNonNull(work.run(tx, won), "the work returned null");
        if (tx.aborted) {
          if (attempt < MAX_ATTEMPTS) {
            continue;
          }
          throw new IllegalStateException("the transaction aborted " + attempt + " times in a row");
        }
        synchronized (backend.lock) {
          putBack(key, claimed, generation);
          complete(request.id(), won.fence(), response, request.now());
          apply(tx);
        }
        return new OneTransactionOutcome.Committed(won, response);
      }
    } finally {
      synchronized (backend.lock) {
        backend.rowOwners.remove(key);
        backend.lock.notifyAll();
      }
    }
  }

  /** How long a claim or a fenced write waits for another thread's row lock. */
  static final Duration ROW_LOCK_WAIT = Duration.ofSeconds(5);

  /** Takes the row lock of {@code key} for this thread; called under the store's lock. */
  protected void lockRow(Object key) {
    awaitRow(key);
    backend.rowOwners.put(key, Thread.currentThread());
  }

  @Override
  protected void awaitRow(Object key) {
    long deadline = System.nanoTime() + ROW_LOCK_WAIT.toNanos();
    Thread owner;
    while ((owner = backend.rowOwners.get(key)) != null && owner != Thread.currentThread()) {
      long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (leftMillis <= 0) {
        throw new StoreUnavailableException("lock wait on " + key + " timed out");
      }
      try {
        backend.lock.wait(leftMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreUnavailableException("interrupted while waiting for the lock of " + key);
      }
    }
  }

  /** The recovery point a won claim would resume from, which one transaction cannot. */
  protected Optional<RecoveryPoint> toResume(ClaimOutcome.Claimed won) {
    return won.resumeFrom();
  }

  private void putBack(Object key, Rec rec, FenceToken generation) {
    if (rec == null) {
      backend.records.remove(key);
    } else {
      backend.records.put(key, rec);
    }
    if (generation == null) {
      backend.generations.remove(key);
    } else {
      backend.generations.put(key, generation);
    }
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return Set.of(
        StoreCapability.TRANSACTIONAL, StoreCapability.ONE_TRANSACTION, StoreCapability.LISTING);
  }
}
