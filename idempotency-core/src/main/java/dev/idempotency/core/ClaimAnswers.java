package dev.idempotency.core;

import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What a request's claims come to when the engine runs no work: a replay, a mismatch or the store's
 * outage answered as its {@link Outcome} with its event, and a key in flight claimed again through
 * the {@link InFlightPolicy}'s bounded wait until the request settles. Both lifecycles of {@link
 * IdempotencyEngine#execute} (stepped, and in one transaction) and the completer's resumption
 * answer their claims here, so the three publish the same events for the same answers. One per
 * engine; holds no state of a request, so thread-safe.
 */
final class ClaimAnswers {
  private static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

  private final IdempotencyConfig config;
  private final Consumer<IdempotencyEvent> publish;

  ClaimAnswers(IdempotencyConfig config, Consumer<IdempotencyEvent> publish) {
    this.config = config;
    this.publish = publish;
  }

  /** What one claim of a request came to: an outcome, or its key in flight. */
  record Settled(@Nullable Outcome outcome, ClaimOutcome.@Nullable InFlight inFlight) {
    static Settled outcome(Outcome outcome) {
      return new Settled(outcome, null);
    }
  }

  /** One claim of a request, at {@code now}. */
  @FunctionalInterface
  interface Attempt {
    Settled claimAt(Instant now) throws OperationFailedException;
  }

  /**
   * Claims until the request settles: at once, or after the {@link InFlightPolicy}'s bounded wait
   * while its key is in flight.
   */
  Outcome untilSettled(RecordId id, @Nullable WaitCancellation cancellation, Attempt attempt)
      throws OperationFailedException, InterruptedException {
    InFlightPolicy waiting = config.inFlightPolicy();
    long waitStart =
        0; // read the wall clock only once a wait begins: replays and fresh claims never need it
    while (true) {
      Instant now = config.clock().instant();
      Settled settled = attempt.claimAt(now);
      if (settled.outcome() != null) {
        return settled.outcome();
      }
      ClaimOutcome.InFlight inFlight = Objects.requireNonNull(settled.inFlight(), "inFlight");
      if (waitStart == 0) {
        waitStart = System.nanoTime();
      }
      // Wall time, not the engine's clock, bounds the wait: it measures how long this thread is
      // held, and a test clock that does not move must not make the wait endless.
      long leftNanos = waiting.maxWait().toNanos() - (System.nanoTime() - waitStart);
      if (waiting.waits() && leftNanos > 0 && pause(cancellation, leftNanos, waiting)) {
        continue;
      }
      Duration retryAfter = retryAfter(inFlight.leaseRemaining());
      publish.accept(
          new IdempotencyEvent.InFlightConflict(
              id, now, retryAfter, Duration.ofNanos(System.nanoTime() - waitStart)));
      return new Outcome.InFlightConflict(retryAfter);
    }
  }

  /**
   * Sleeps between two claims of a wait; false when {@code cancellation} ended the wait (before or
   * during the sleep), so that no further claim is made.
   */
  private static boolean pause(
      @Nullable WaitCancellation cancellation, long leftNanos, InFlightPolicy waiting)
      throws InterruptedException {
    long nanos = Math.min(leftNanos, waiting.pollInterval().toNanos());
    if (cancellation == null) {
      TimeUnit.NANOSECONDS.sleep(nanos);
      return true;
    }
    return cancellation.pause(nanos);
  }

  /** The answer to a claim that was not won: a replay, a mismatch, or the key in flight. */
  Settled answer(RecordId id, Instant now, ClaimOutcome claim) {
    if (claim instanceof ClaimOutcome.Completed done) {
      publish.accept(new IdempotencyEvent.Replayed(id, now, done.response().status()));
      return Settled.outcome(new Outcome.Replayed(done.response(), done.completedAt()));
    }
    if (claim instanceof ClaimOutcome.Mismatch mismatch) {
      publish.accept(new IdempotencyEvent.Mismatched(id, now, mismatch.existingState()));
      return Settled.outcome(new Outcome.Mismatch(mismatch.existingState()));
    }
    return new Settled(null, (ClaimOutcome.InFlight) claim);
  }

  /** The answer to a claim the store could not be asked: the request fails closed. */
  Outcome storeUnavailable(RecordId id, Instant now, StoreUnavailableException e) {
    publish.accept(new IdempotencyEvent.StoreUnavailable(id, now, String.valueOf(e.getMessage())));
    return new Outcome.StoreUnavailable(e);
  }

  /** The configured in-flight Retry-After, capped by the remaining lease, at least one second. */
  private Duration retryAfter(Duration leaseRemaining) {
    Duration suggested = config.inFlightRetryAfter();
    if (leaseRemaining.compareTo(suggested) < 0) {
      suggested = leaseRemaining;
    }
    return suggested.compareTo(MIN_RETRY_AFTER) < 0 ? MIN_RETRY_AFTER : suggested;
  }
}
