package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The owner of one claimed record, as the transactional rules call the store for it: the record,
 * the fence of its claim, the time of its calls and its lease (what the engine passes for the
 * execution it runs). It counts the runs of the work the rules hand the store. Thread-safe.
 */
public final class Owner {
  private final RecordId id;
  private final ClaimOutcome.Claimed claimed;
  private final Instant now;
  private final Duration lease;
  private final AtomicInteger workRuns = new AtomicInteger();

  /**
   * The owner of {@code id}, claimed as {@code claimed}.
   *
   * @param now the time of its calls, as the engine's clock gives it
   * @param lease the lease it holds
   */
  public Owner(RecordId id, ClaimOutcome.Claimed claimed, Instant now, Duration lease) {
    this.id = Objects.requireNonNull(id, "id");
    this.claimed = Objects.requireNonNull(claimed, "claimed");
    this.now = Objects.requireNonNull(now, "now");
    this.lease = Objects.requireNonNull(lease, "lease");
  }

  /** The same owner at a later time {@code later}, with a count of runs of its own. */
  public Owner at(Instant later) {
    return new Owner(id, claimed, later, lease);
  }

  /** Records a run of the work; the contract's work calls it first thing. */
  public void workRuns() {
    workRuns.incrementAndGet();
  }

  /** The runs of the work so far. */
  public int runs() {
    return workRuns.get();
  }

  public RecordId recordId() {
    return id;
  }

  public FenceToken fence() {
    return claimed.fence();
  }

  public Instant now() {
    return now;
  }

  public Duration lease() {
    return lease;
  }

  @Override
  public String toString() {
    return "Owner[" + id + ", " + fence() + "]";
  }
}
