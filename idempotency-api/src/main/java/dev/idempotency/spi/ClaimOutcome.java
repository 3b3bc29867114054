package dev.idempotency.spi;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link KeyStore#claim(ClaimRequest)} found and did: exactly one of {@link Claimed}, {@link
 * InFlight}, {@link Completed} or {@link Mismatch}. Callers switch over it exhaustively.
 */
public sealed interface ClaimOutcome {

  /**
   * The caller won the record and now owns it until its lease expires: it may run the operation.
   *
   * @param fence the new fence token, strictly greater than every token issued before for this
   *     record
   * @param resumeFrom the last recovery point a previous owner committed (a resumed request), else
   *     empty
   * @param takeover whether the claim took over an in-flight record whose lease had expired
   * @param generation the fence of the claim that began this request: this claim's own fence for a
   *     fresh claim, and for a takeover the generation of the request it resumes, kept across every
   *     takeover. It tells two requests under one key apart (one before a release or the window's
   *     end, one after), while every owner of one request shares it; {@code
   *     Execution.downstreamKey} derives from it.
   */
  record Claimed(
      FenceToken fence, Optional<RecoveryPoint> resumeFrom, boolean takeover, FenceToken generation)
      implements ClaimOutcome {
    /**
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code generation} is newer than {@code fence}, or
     *     differs from it for a fresh claim
     */
    public Claimed {
      Objects.requireNonNull(fence, "fence");
      Objects.requireNonNull(resumeFrom, "resumeFrom");
      Objects.requireNonNull(generation, "generation");
      if (generation.isNewerThan(fence) || (!takeover && !generation.equals(fence))) {
        throw new IllegalArgumentException(
            "generation "
                + generation
                + " of a "
                + (takeover ? "takeover" : "fresh")
                + " claim with fence "
                + fence
                + ": a fresh claim begins its own generation, a takeover keeps an older"
                + " one");
      }
    }

    /** A fresh claim: it begins a request, so its generation is its own fence. */
    public static Claimed fresh(FenceToken fence) {
      return new Claimed(fence, Optional.empty(), false, fence);
    }
  }

  /**
   * Another owner holds a live lease on the record (same fingerprint): the caller must not run the
   * operation.
   *
   * @param leaseRemaining how long the current lease has left: {@code leaseExpiresAt - now}, by the
   *     clock the store judges time by, zero or more (a store judging by its server's clock may cap
   *     it at the asking claim's lease). To the caller it bounds when a takeover could happen, not
   *     when the result will be there: the owner may finish sooner or heartbeat longer.
   */
  record InFlight(Duration leaseRemaining) implements ClaimOutcome {
    /**
     * @throws NullPointerException if {@code leaseRemaining} is null
     */
    public InFlight {
      Objects.requireNonNull(leaseRemaining, "leaseRemaining");
      if (leaseRemaining.isNegative()) {
        leaseRemaining = Duration.ZERO;
      }
    }
  }

  /**
   * The record completed within the replay window with the same fingerprint: replay {@code
   * response} verbatim.
   *
   * @param response the stored response, byte for byte as it was completed
   * @param completedAt when the record completed, by the clock the store judges time by
   */
  record Completed(StoredResponse response, Instant completedAt) implements ClaimOutcome {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Completed {
      Objects.requireNonNull(response, "response");
      Objects.requireNonNull(completedAt, "completedAt");
    }
  }

  /**
   * The record exists (in flight, or completed within the window) with a different fingerprint: the
   * same key was reused for another request. Never replayed, never run; the record is unchanged.
   *
   * @param existingState the state of the record the key belongs to: {@code IN_FLIGHT} or {@code
   *     COMPLETE}
   */
  record Mismatch(KeyState existingState) implements ClaimOutcome {
    /**
     * @throws NullPointerException if {@code existingState} is null
     */
    public Mismatch {
      Objects.requireNonNull(existingState, "existingState");
    }
  }
}
