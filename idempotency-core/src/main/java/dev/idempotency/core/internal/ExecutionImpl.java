package dev.idempotency.core.internal;

import dev.idempotency.Answer;
import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.TransactionalKeyStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/** The engine's {@link Execution}: one per won claim. */
public final class ExecutionImpl implements Execution {
  private final KeyStore store;
  private final RecordId id;
  private final FenceToken fence;
  private final FenceToken generation;
  private final Optional<RecoveryPoint> resumeFrom;
  private final boolean takeover;
  private final InstantSource clock;
  private final Duration lease;
  private final Heartbeats heartbeats;
  private final Instant startedAt;
  // written by the operation's thread (or a store it called), read by the engine after the
  // operation returned
  private volatile @Nullable RecoveryPoint committedPoint;
  private volatile @Nullable StoredResponse committedResponse;
  // what the caller gets for the committed completion: the sent form of its answer
  private volatile @Nullable StoredResponse committedSent;
  // set by the heartbeat threads or a refused checkpoint, read by the operation: told to stop
  // (sticky)
  private volatile boolean leaseLost;
  // a fenced write under this fence was refused: another owner has the record, renewing is
  // pointless
  private volatile boolean refused;
  // the end of the lease as last confirmed by the store, by the lease clock (Heartbeats.leaseTime)
  // read before the confirming call
  private volatile Instant confirmedUntil;
  // transactional phases open now (normally 0 or 1): their fenced write renews the lease, renewals
  // stay away
  private final AtomicInteger openPhases = new AtomicInteger();

  /**
   * Creates the execution of one won claim.
   *
   * @param claimedAt the lease clock's time ({@link Heartbeats#leaseTime}) read before the claim:
   *     the lease it won ends no earlier than this plus the lease
   */
  public ExecutionImpl(
      KeyStore store,
      RecordId id,
      ClaimOutcome.Claimed won,
      InstantSource clock,
      Duration lease,
      Instant claimedAt,
      Heartbeats heartbeats) {
    this.store = store;
    this.id = id;
    this.fence = won.fence();
    this.generation = won.generation();
    this.resumeFrom = won.resumeFrom();
    this.takeover = won.takeover();
    this.clock = clock;
    this.lease = lease;
    this.heartbeats = heartbeats;
    this.startedAt = claimedAt;
    this.confirmedUntil = claimedAt.plus(lease);
    // a resumed request has committed phases already: failing now must not release it
    this.committedPoint = resumeFrom.orElse(null);
  }

  @Override
  public RecordId recordId() {
    return id;
  }

  @Override
  public FenceToken fence() {
    return fence;
  }

  @Override
  public Optional<RecoveryPoint> resumeFrom() {
    return resumeFrom;
  }

  @Override
  public boolean isTakeover() {
    return takeover;
  }

  @Override
  public Instant now() {
    return clock.instant();
  }

  @Override
  public Duration lease() {
    return lease;
  }

  @Override
  public void checkpoint(RecoveryPoint point) {
    Objects.requireNonNull(point, "point");
    Instant now = clock.instant();
    Instant leaseNow = heartbeats.leaseTime(now);
    try {
      store.checkpoint(id, fence, point, now, lease);
    } catch (LeaseLostException e) {
      markLeaseLost();
      throw e;
    }
    committedPoint = point;
    confirmUntil(leaseNow.plus(lease));
  }

  @Override
  public boolean leaseLost() {
    return leaseLost;
  }

  /**
   * Records that a write under this fence was refused: another owner has the record.
   *
   * @return whether this call was the first to learn it
   */
  public synchronized boolean markLeaseLost() {
    leaseLost = true;
    boolean first = !refused;
    refused = true;
    return first;
  }

  /**
   * Tells the owner to stop before its next call out, without knowing that another owner has the
   * record.
   */
  void tell() {
    leaseLost = true;
  }

  /** Whether a write under this fence was refused. */
  boolean refused() {
    return refused;
  }

  /** When this execution won its claim, by the engine's clock. */
  Instant startedAt() {
    return startedAt;
  }

  /** The end of the lease as last confirmed by the store. */
  Instant confirmedUntil() {
    return confirmedUntil;
  }

  /** Records a renewal the store confirmed; never moves the confirmed end back. */
  synchronized void confirmUntil(Instant until) {
    if (until.isAfter(confirmedUntil)) {
      confirmedUntil = until;
    }
  }

  /** Whether a transactional phase of this execution is open. */
  boolean phaseOpen() {
    return openPhases.get() > 0;
  }

  @Override
  public <T, R> R checkpoint(
      RecoveryPoint next, Class<T> transactionType, TransactionalWork<T, R> work) throws Exception {
    Objects.requireNonNull(next, "next");
    Objects.requireNonNull(work, "work");
    TransactionalKeyStore<T> tx = transactional(transactionType);
    return inTransaction(
        () -> tx.inPhase(id, fence, next, clock.instant(), lease, work),
        (result, opened) -> {
          committedPoint = next;
          // the phase's fenced write renewed the lease no earlier than the phase opened
          confirmUntil(opened.plus(lease));
        });
  }

  @Override
  public <T> StoredResponse completeWith(
      Class<T> transactionType, TransactionalWork<T, ? extends Answer> work) throws Exception {
    Objects.requireNonNull(work, "work");
    TransactionalKeyStore<T> tx = transactional(transactionType);
    // the store may run the work again after a retryable abort: the last run's answer is the one
    // that committed
    StoredResponse[] sent = new StoredResponse[1];
    TransactionalWork<T, StoredResponse> storing =
        handle -> {
          Answer answer =
              Objects.requireNonNull(
                  work.run(handle), "the work returned null instead of an answer");
          if (answer instanceof Answer.Released released) {
            throw new IllegalArgumentException(
                "completeWith's work answered Answer.released ("
                    + released.reason()
                    + "), but its writes would commit while a retry ran the work again: return the"
                    + " answer from the operation instead, or throw to roll the writes back");
          }
          sent[0] = answer.sent();
          return answer instanceof Answer.StoredAs storedAs ? storedAs.stored() : answer.sent();
        };
    inTransaction(
        () -> tx.completeWith(id, fence, clock.instant(), storing),
        (response, opened) -> {
          committedResponse = Objects.requireNonNull(response, "the store's completion");
          committedSent = Objects.requireNonNull(sent[0], "the committed run's answer");
          // complete: nothing left to renew, and a renewal now would be refused
          heartbeats.stop(this);
        });
    return Objects.requireNonNull(sent[0], "the committed run's answer");
  }

  /** A call of the store's that runs one transaction of this execution's. */
  private interface TransactionCall<R> {
    R call() throws Exception;
  }

  /**
   * Runs {@code call} as an open phase, then {@code committed} with its result: the engine stops
   * renewing this lease until both end, since a renewal committed while the transaction is open
   * would make its fenced write fail at REPEATABLE READ and SERIALIZABLE (a concurrent update of
   * the row), and one sent after the commit, before the engine learnt of it, would be refused by a
   * completed record and read as a lost lease. The phase's fenced write renews the lease instead.
   */
  private <R> R inTransaction(TransactionCall<R> call, BiConsumer<R, Instant> committed)
      throws Exception {
    Instant opened = heartbeats.leaseTime();
    openPhases.incrementAndGet();
    try {
      heartbeats.awaitRenewal(this);
      R result = call.call();
      committed.accept(result, opened);
      return result;
    } catch (LeaseLostException e) {
      // this fence refused (another owner has the record); not one the work's own calls lost
      if (e.id().equals(id) && e.fence().equals(fence)) {
        markLeaseLost();
      }
      throw e;
    } finally {
      openPhases.decrementAndGet();
    }
  }

  /**
   * The engine's store as a transactional store whose work is given a {@code type}.
   *
   * @throws UnsupportedOperationException if it is none, or hands the work another type
   */
  @SuppressWarnings("unchecked") // checked: the store's handles are instances of type
  private <T> TransactionalKeyStore<T> transactional(Class<T> type) {
    Objects.requireNonNull(type, "transactionType");
    if (!(store instanceof TransactionalKeyStore<?> tx)) {
      throw new UnsupportedOperationException(
          "the engine's store "
              + store
              + " runs no transaction of the application's (it does not declare"
              + " StoreCapability.TRANSACTIONAL): use checkpoint between phases, and return the"
              + " response from the operation");
    }
    if (!type.isAssignableFrom(tx.transactionType())) {
      throw new UnsupportedOperationException(
          "the engine's store "
              + store
              + " hands its work a "
              + tx.transactionType().getName()
              + ", not a "
              + type.getName());
    }
    return (TransactionalKeyStore<T>) tx;
  }

  @Override
  public IdempotencyKey downstreamKey(String purpose) {
    Objects.requireNonNull(purpose, "purpose");
    if (purpose.isEmpty() || purpose.length() > 64) {
      throw new IllegalArgumentException(
          "purpose must be 1 to 64 characters, but had " + purpose.length());
    }
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      // length-prefixed parts, so that ("a/b", "c") and ("a", "b/c") cannot produce the same input.
      // The generation (the fence of the claim that began this request, kept across takeovers)
      // tells this request from an earlier one under the same key: a key reused after a release or
      // past the window is a new request, and must not get the old request's downstream key (a
      // payment provider would answer with the old charge).
      String[] parts = {
        id.scope().value(), id.key().value(), purpose, Long.toString(generation.value())
      };
      for (String part : parts) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
      }
      return IdempotencyKey.of("dk-" + HexFormat.of().formatHex(sha.digest(), 0, 24));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  /** The last recovery point committed by this or a previous owner, if any. */
  public Optional<RecoveryPoint> committedPoint() {
    return Optional.ofNullable(committedPoint);
  }

  /** The response a transactional store already committed as the completion, if any. */
  public Optional<StoredResponse> committedResponse() {
    return Optional.ofNullable(committedResponse);
  }

  /** What the caller gets for the completion committed with the work's last step, if any. */
  public Optional<StoredResponse> committedSent() {
    return Optional.ofNullable(committedSent);
  }
}
