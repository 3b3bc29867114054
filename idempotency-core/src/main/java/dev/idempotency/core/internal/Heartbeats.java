package dev.idempotency.core.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.StoreCapability;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the leases of an engine's running operations: one renewal per heartbeat interval for all of
 * them, and a watch that tells an owner before its lease can lapse unconfirmed.
 *
 * <ul>
 *   <li><b>Renewal</b>: every {@code interval}, one {@link KeyStore#heartbeatAll} call renews every
 *       operation's lease, so the cost of a tick does not grow with the number of operations in
 *       flight (one statement on a relational store) and one slow store call cannot starve the
 *       leases queued behind it. A lease is confirmed until the time read <em>before</em> the call
 *       plus the lease: the store's lease can only end later. Refused fences mark their owners
 *       lost. Operations whose transactional phase is open are left out (the phase's fenced write
 *       renews the lease; a renewal racing it would make it fail at REPEATABLE READ).
 *   <li><b>Watch</b>: on a second thread, so that a renewal blocked on a starved connection pool or
 *       a stalled store cannot silence it, every quarter of the {@linkplain
 *       dev.idempotency.core.IdempotencyConfig#leaseSafetyMargin safety margin}, it tells each
 *       owner whose confirmed lease ends within that margin ({@code Execution.leaseLost()}, event
 *       {@code LeaseUnconfirmed}): before the lapse, never after.
 *   <li><b>Bound</b>: an operation running past {@code maxOperationTime} is no longer renewed, and
 *       its owner is told ({@code OperationTimedOut}): a hung operation cannot hold its key in
 *       flight forever.
 * </ul>
 *
 * <p>Registering is one concurrent-set insert on the request's hot path; the ticks do the rest.
 */
public final class Heartbeats implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Heartbeats.class.getName());

  private final KeyStore store;
  private final InstantSource clock;

  /**
   * What leases are measured by here: the engine's clock, or a monotonic one when the store judges
   * by its own.
   */
  private final boolean monotonic;

  private final Duration lease;
  private final Duration margin;
  private final Duration maxOperationTime;
  private final Duration interval;
  private final Consumer<IdempotencyEvent> publish;
  private final Set<ExecutionImpl> running = ConcurrentHashMap.newKeySet();

  /**
   * Held while a renewal is built and sent, so that a phase can wait for it before its transaction
   * opens.
   */
  private final ReentrantLock renewing = new ReentrantLock();

  /** The operations of the renewal under way; {@code null} while it is being built. */
  private volatile @Nullable Set<ExecutionImpl> renewingNow = Set.of();

  private final ScheduledThreadPoolExecutor scheduler;

  /**
   * Starts the renewal and watch threads.
   *
   * @param margin how long before a confirmed lease's end an unconfirmed owner is told
   */
  public Heartbeats(
      KeyStore store,
      InstantSource clock,
      Duration interval,
      Duration lease,
      Duration margin,
      Duration maxOperationTime,
      Consumer<IdempotencyEvent> publish) {
    this.store = store;
    this.clock = clock;
    // A store on its server's clock judges leases by that clock, not the engine's: measuring them
    // here by the engine's wall clock would let a step of it (NTP) tell owners late, or time every
    // operation out at once.
    this.monotonic = store.capabilities().contains(StoreCapability.SERVER_CLOCK);
    this.interval = interval;
    this.lease = lease;
    this.margin = margin;
    this.maxOperationTime = maxOperationTime;
    this.publish = publish;
    AtomicInteger threads = new AtomicInteger();
    scheduler =
        new ScheduledThreadPoolExecutor(
            2,
            r -> {
              Thread t = new Thread(r, "idempotency-heartbeat-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    // the periodic tasks end with the scheduler (close); guarded() logs what they throw, so no
    // future is read
    Future<?> unused =
        scheduler.scheduleWithFixedDelay(
            guarded("renewal", this::renew),
            interval.toNanos(),
            interval.toNanos(),
            TimeUnit.NANOSECONDS);
    long watchNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), margin.toNanos() / 4);
    unused =
        scheduler.scheduleAtFixedRate(
            guarded("lease watch", this::watch), watchNanos, watchNanos, TimeUnit.NANOSECONDS);
  }

  /**
   * The time leases are measured by, for an engine time {@code engineNow} just read: {@code
   * engineNow} itself, or the monotonic clock when the store judges time by its server's clock.
   */
  public Instant leaseTime(Instant engineNow) {
    return monotonic ? Instant.EPOCH.plusNanos(System.nanoTime()) : engineNow;
  }

  /** {@link #leaseTime} now. */
  Instant leaseTime() {
    return monotonic ? Instant.EPOCH.plusNanos(System.nanoTime()) : clock.instant();
  }

  /** Tells every running owner to stop: no renewal will keep its lease. */
  public void tellAll() {
    for (ExecutionImpl e : running) {
      e.tell();
    }
  }

  /** Renews {@code execution}'s lease on every tick until {@link #stop} is called for it. */
  public void start(ExecutionImpl execution) {
    running.add(execution);
  }

  /** Stops renewing {@code execution}; a renewal already under way may still finish. */
  public void stop(ExecutionImpl execution) {
    running.remove(execution);
  }

  /**
   * Waits, at most a second (or one interval, if shorter), while a renewal that includes {@code
   * execution}, or is still being built, is under way: called after the execution marked its phase
   * open, so that no renewal that includes it commits inside the phase's transaction. A renewal
   * stuck longer (a starved pool) is not waited for: the phase then risks one serialization
   * failure, which its store retries.
   */
  void awaitRenewal(ExecutionImpl execution) {
    if (!renewing.isLocked()) {
      return;
    }
    Set<ExecutionImpl> members = renewingNow;
    if (members != null && !members.contains(execution)) {
      return;
    }
    try {
      long bound = Math.min(interval.toNanos(), TimeUnit.SECONDS.toNanos(1));
      if (renewing.tryLock(bound, TimeUnit.NANOSECONDS)) {
        renewing.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void renew() {
    renewing.lock();
    try {
      renewingNow = null;
      Instant now = clock.instant();
      Instant leaseNow = leaseTime(now);
      // built under the lock: a phase that opens now either is seen open here, or waits for this
      // renewal to end
      Map<RecordId, ExecutionImpl> batch = batch(now, leaseNow);
      renewingNow = Set.copyOf(batch.values());
      if (batch.isEmpty()) {
        return;
      }
      Map<RecordId, FenceToken> leases = new HashMap<>();
      batch.forEach((id, e) -> leases.put(id, e.fence()));
      Set<RecordId> refused;
      try {
        refused = store.heartbeatAll(leases, now, lease);
      } catch (RuntimeException e) {
        // not fatal: the lease is longer than two intervals, and the watch tells owners whose lease
        // runs short
        LOG.log(System.Logger.Level.WARNING, "renewing " + leases.size() + " leases failed", e);
        return;
      }
      Instant confirmedUntil = leaseNow.plus(lease);
      batch.forEach(
          (id, e) -> {
            if (!running.contains(e)) {
              // finished while the renewal was under way: a completed or released record refuses
              // the renewal, which says nothing about its owner
              return;
            }
            if (refused.contains(id)) {
              if (completedByItsOwner(e)) {
                // the owner's completion landed while this renewal was under way (a transactional
                // store's phase closes before the engine hears of the commit): nothing was lost
                running.remove(e);
              } else {
                refuse(e, now);
              }
            } else {
              e.confirmUntil(confirmedUntil);
            }
          });
    } finally {
      renewingNow = Set.of();
      renewing.unlock();
    }
  }

  /**
   * Whether the record whose renewal {@code e} was refused is complete under {@code e}'s own fence:
   * its own completion, not another owner. Read from the store, for a refusal only (rare); a read
   * that fails counts as a loss, which is what the refusal said.
   */
  private boolean completedByItsOwner(ExecutionImpl e) {
    try {
      return store
          .lookup(e.recordId())
          .filter(r -> r.state() == KeyState.COMPLETE && r.fence().equals(e.fence()))
          .isPresent();
    } catch (RuntimeException failed) {
      return false;
    }
  }

  /** The operations to renew now; those past maxOperationTime are told and dropped instead. */
  private Map<RecordId, ExecutionImpl> batch(Instant now, Instant leaseNow) {
    Map<RecordId, ExecutionImpl> batch = new HashMap<>();
    for (Iterator<ExecutionImpl> it = running.iterator(); it.hasNext(); ) {
      ExecutionImpl e = it.next();
      if (e.refused() || e.phaseOpen()) {
        continue;
      }
      Duration ran = Duration.between(e.startedAt(), leaseNow);
      if (ran.compareTo(maxOperationTime) >= 0) {
        it.remove();
        e.tell();
        publish.accept(new IdempotencyEvent.OperationTimedOut(e.recordId(), now, e.fence(), ran));
        continue;
      }
      // Two owners of one record in this engine: the older one lost it to the newer (fences grow
      // per record).
      ExecutionImpl other = batch.putIfAbsent(e.recordId(), e);
      if (other != null) {
        ExecutionImpl older = other.fence().compareTo(e.fence()) < 0 ? other : e;
        batch.put(e.recordId(), older == other ? e : other);
        refuse(older, now);
      }
    }
    return batch;
  }

  private void refuse(ExecutionImpl e, Instant now) {
    if (e.markLeaseLost()) {
      publish.accept(new IdempotencyEvent.LeaseLost(e.recordId(), now, e.fence()));
    }
  }

  private void watch() {
    Instant now = clock.instant();
    Instant deadline = leaseTime(now).plus(margin);
    for (ExecutionImpl e : running) {
      Instant confirmed = e.confirmedUntil();
      if (!e.leaseLost() && !deadline.isBefore(confirmed)) {
        e.tell();
        publish.accept(
            new IdempotencyEvent.LeaseUnconfirmed(e.recordId(), now, e.fence(), confirmed));
      }
    }
  }

  private static Runnable guarded(String what, Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (Throwable t) {
        // anything escaping would cancel the schedule, and with it every lease's renewal or watch
        LOG.log(System.Logger.Level.ERROR, what + " failed; it runs again at the next tick", t);
      }
    };
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
