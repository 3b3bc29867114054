package dev.idempotency.tck.internal;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.TransactionCallbacks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * The execution the transactional rules hand a store, standing for the engine's: an {@link
 * Execution} that is its own {@link TransactionCallbacks}, as the engine's executions are. It
 * records the callbacks in the order the store makes them, with the runs of the work between them
 * (the contract's work reports each run through {@link #workRuns()}), and at each commit callback
 * it reads what is committed at that instant: the record, through the store, and the business
 * writes, through the implementer's committed read. A callback made before the commit shows up as a
 * read that does not see the change yet.
 *
 * <p>Thread-safe: a store may call back from another thread than the one that called it.
 */
public final class ObservedExecution implements Execution, TransactionCallbacks {
  /** The event a run of the work leaves in {@link #events()}. */
  public static final String WORK = "work";

  static final String OPENING = "phaseOpening";
  static final String CLOSED = "phaseClosed";

  /**
   * What the store reported as committed, and what was committed when it did.
   *
   * @param reported the recovery point of {@code phaseCommitted} or the response of {@code
   *     completionCommitted}
   * @param record the record as {@code lookup} showed it inside the callback
   * @param markers the business writes the committed read showed inside the callback, sorted; empty
   *     if it threw
   * @param readFailure what the committed read threw, or null
   */
  public record Commit(
      Object reported,
      Optional<RecordSnapshot> record,
      List<String> markers,
      @Nullable Exception readFailure) {}

  private final KeyStore store;
  private final RecordId id;
  private final ClaimOutcome.Claimed claimed;
  private final Instant now;
  private final Duration lease;
  private final Callable<List<String>> committedMarkers;
  private final List<String> events = new ArrayList<>();
  private final List<Commit> commits = new ArrayList<>();
  private final List<List<String>> markersAtClose = new ArrayList<>();

  /**
   * An execution of the record {@code id} claimed as {@code claimed}.
   *
   * @param store the store the record lives in: its lookup shows what is committed
   * @param id the record
   * @param claimed the claim that made this owner
   * @param now the time of the execution, as the engine's clock gives it
   * @param lease the lease the owner holds
   * @param committedMarkers reads the business writes committed so far, outside any transaction,
   *     sorted
   */
  public ObservedExecution(
      KeyStore store,
      RecordId id,
      ClaimOutcome.Claimed claimed,
      Instant now,
      Duration lease,
      Callable<List<String>> committedMarkers) {
    this.store = Objects.requireNonNull(store, "store");
    this.id = Objects.requireNonNull(id, "id");
    this.claimed = Objects.requireNonNull(claimed, "claimed");
    this.now = Objects.requireNonNull(now, "now");
    this.lease = Objects.requireNonNull(lease, "lease");
    this.committedMarkers = Objects.requireNonNull(committedMarkers, "committedMarkers");
  }

  /** The same owner at a later time {@code later}, with a record of events of its own. */
  public ObservedExecution at(Instant later) {
    return new ObservedExecution(store, id, claimed, later, lease, committedMarkers);
  }

  /** Records a run of the work; the contract's work calls it first thing. */
  public void workRuns() {
    synchronized (events) {
      events.add(WORK);
    }
  }

  /** The callbacks and runs of the work so far, in order. */
  public List<String> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** The commits the store reported so far, in order. */
  public List<Commit> commits() {
    synchronized (events) {
      return List.copyOf(commits);
    }
  }

  /**
   * The business writes the committed read showed at each {@code phaseClosed}, in order (empty
   * where the read threw): a store that closes the phase before its commit is seen here without the
   * phase's writes.
   */
  public List<List<String>> markersAtClose() {
    synchronized (events) {
      return List.copyOf(markersAtClose);
    }
  }

  /** Forgets the events and commits so far, so that the next call is judged alone. */
  public void forget() {
    synchronized (events) {
      events.clear();
      commits.clear();
      markersAtClose.clear();
    }
  }

  /**
   * What is wrong with the bracket of the events so far, or null: every run of the work must fall
   * between a {@code phaseOpening} and its {@code phaseClosed}, every {@code phaseOpening} must be
   * closed once, and no {@code phaseClosed} may come without one.
   */
  public @Nullable String bracketProblem() {
    int open = 0;
    int position = 0;
    for (String event : events()) {
      position++;
      if (event.equals(OPENING)) {
        open++;
      } else if (event.equals(CLOSED)) {
        if (open == 0) {
          return "event " + position + " is a phaseClosed without a phaseOpening before it";
        }
        open--;
      } else if (event.equals(WORK) && open == 0) {
        return "the work ran (event " + position + ") without a phaseOpening before it";
      }
    }
    return open == 0 ? null : open + " phaseOpening(s) never closed by phaseClosed";
  }

  /**
   * This execution without its callbacks: what an application's own wrapper that does not forward
   * them is.
   */
  public Execution withoutCallbacks() {
    ObservedExecution self = this;
    return new Execution() {
      @Override
      public RecordId recordId() {
        return self.recordId();
      }

      @Override
      public FenceToken fence() {
        return self.fence();
      }

      @Override
      public Optional<RecoveryPoint> resumeFrom() {
        return self.resumeFrom();
      }

      @Override
      public boolean isTakeover() {
        return self.isTakeover();
      }

      @Override
      public Instant now() {
        return self.now();
      }

      @Override
      public Duration lease() {
        return self.lease();
      }

      @Override
      public void checkpoint(RecoveryPoint point) {
        self.checkpoint(point);
      }

      @Override
      public boolean leaseLost() {
        return self.leaseLost();
      }

      @Override
      public IdempotencyKey downstreamKey(String purpose) {
        return self.downstreamKey(purpose);
      }

      @Override
      public String toString() {
        return "an Execution without TransactionCallbacks, wrapping " + self;
      }
    };
  }

  @Override
  public RecordId recordId() {
    return id;
  }

  @Override
  public FenceToken fence() {
    return claimed.fence();
  }

  @Override
  public Optional<RecoveryPoint> resumeFrom() {
    return claimed.resumeFrom();
  }

  @Override
  public boolean isTakeover() {
    return claimed.takeover();
  }

  @Override
  public Instant now() {
    return now;
  }

  @Override
  public Duration lease() {
    return lease;
  }

  /**
   * A checkpoint of its own, as the engine's execution makes one: a fenced write outside any phase.
   */
  @Override
  public void checkpoint(RecoveryPoint point) {
    store.checkpoint(id, fence(), point, now, lease);
  }

  /** Never lost: the rules learn of a lost lease from the store's fenced writes, which throw. */
  @Override
  public boolean leaseLost() {
    return false;
  }

  @Override
  public IdempotencyKey downstreamKey(String purpose) {
    return IdempotencyKey.of(purpose + "-" + claimed.generation().value());
  }

  @Override
  public void phaseOpening() {
    synchronized (events) {
      events.add(OPENING);
    }
  }

  @Override
  public void phaseClosed() {
    List<String> markers;
    try {
      markers = committedMarkers.call();
    } catch (Exception e) {
      markers = List.of();
    }
    synchronized (events) {
      events.add(CLOSED);
      markersAtClose.add(markers);
    }
  }

  @Override
  public void phaseCommitted(RecoveryPoint point) {
    committed("phaseCommitted(" + Describe.point(point) + ")", point);
  }

  @Override
  public void completionCommitted(StoredResponse response) {
    committed("completionCommitted(" + Describe.response(response) + ")", response);
  }

  /** Reads what is committed now, outside the lock, then records the commit with it. */
  private void committed(String event, Object reported) {
    Optional<RecordSnapshot> record = store.lookup(id);
    List<String> markers = List.of();
    Exception failure = null;
    try {
      markers = committedMarkers.call();
    } catch (Exception e) {
      failure = e;
    }
    synchronized (events) {
      events.add(event);
      commits.add(new Commit(reported, record, markers, failure));
    }
  }

  @Override
  public String toString() {
    return "ObservedExecution[" + id + ", " + fence() + "]";
  }
}
