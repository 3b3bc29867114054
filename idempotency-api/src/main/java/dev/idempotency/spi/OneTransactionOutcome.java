package dev.idempotency.spi;

import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.util.Objects;

/**
 * What {@link TransactionalKeyStore#claimAndComplete} did: exactly one of {@link Committed}, {@link
 * NotRun} or {@link NeedsResumption}.
 */
public sealed interface OneTransactionOutcome {

  /**
   * The claim, the work's writes and the completion with {@code response} committed together.
   *
   * @param claim the claim the committed run held: a fresh claim, or the takeover of an expired
   *     in-flight record that had no recovery point
   * @param response the response the work returned, stored as the completion
   */
  record Committed(ClaimOutcome.Claimed claim, StoredResponse response)
      implements OneTransactionOutcome {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Committed {
      Objects.requireNonNull(claim, "claim");
      Objects.requireNonNull(response, "response");
    }
  }

  /**
   * The record did not count as absent: the claim's answer, and the work did not run. Nothing was
   * written.
   *
   * @param outcome {@link ClaimOutcome.Completed} (replay it), {@link ClaimOutcome.Mismatch}, or
   *     {@link ClaimOutcome.InFlight}: another request holds the record, committed (a two-commit
   *     owner with a live lease) or not (its transaction did not end within the store's lock wait)
   */
  record NotRun(ClaimOutcome outcome) implements OneTransactionOutcome {
    /**
     * @throws NullPointerException if {@code outcome} is null
     * @throws IllegalArgumentException if {@code outcome} is {@link ClaimOutcome.Claimed}
     */
    public NotRun {
      Objects.requireNonNull(outcome, "outcome");
      if (outcome instanceof ClaimOutcome.Claimed) {
        throw new IllegalArgumentException("a claim that was won is not an outcome of NotRun");
      }
    }
  }

  /**
   * The record is in flight with an expired lease and a recovery point: a request of several steps,
   * started by the two-commit lifecycle, crashed after committing a phase. One transaction cannot
   * resume it (the steps it finished are not the work's to skip), so the claim was rolled back,
   * nothing was written and the work did not run. A retry through the two-commit lifecycle with the
   * request's own operation, or the completer, resumes it from {@code lastPoint}.
   *
   * @param lastPoint the recovery point the record holds
   */
  record NeedsResumption(RecoveryPoint lastPoint) implements OneTransactionOutcome {
    /**
     * @throws NullPointerException if {@code lastPoint} is null
     */
    public NeedsResumption {
      Objects.requireNonNull(lastPoint, "lastPoint");
    }
  }
}
