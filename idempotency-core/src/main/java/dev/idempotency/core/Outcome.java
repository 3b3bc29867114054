package dev.idempotency.core;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link IdempotencyEngine#execute} did with one request: exactly one of the five outcomes
 * below. The HTTP layer maps each to a status, headers and body; other callers switch over them
 * exhaustively.
 */
public sealed interface Outcome {

  /**
   * The work ran under this request's claim.
   *
   * @param response the response the work's {@link dev.idempotency.Answer} sends to its caller
   * @param fence the fence the work ran under
   * @param resumed whether it resumed a request a previous owner left in flight
   * @param stored whether the answer's stored form is stored for replay; false when the key was
   *     released (the {@link StoredResponsePolicy} excluded the response, or the answer asked for
   *     it), when the store kept the not-stored marker in its place (too large, or refused), or
   *     when the store failed while completing (the record stays in flight; the event log says
   *     which)
   */
  record Executed(StoredResponse response, FenceToken fence, boolean resumed, boolean stored)
      implements Outcome {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Executed {
      Objects.requireNonNull(response, "response");
      Objects.requireNonNull(fence, "fence");
    }
  }

  /**
   * The request had completed before: here is its stored response, byte for byte. The operation did
   * not run.
   *
   * @param response the stored response
   * @param completedAt when it completed
   */
  record Replayed(StoredResponse response, Instant completedAt) implements Outcome {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Replayed {
      Objects.requireNonNull(response, "response");
      Objects.requireNonNull(completedAt, "completedAt");
    }
  }

  /**
   * Another request with the same key is still running (after waiting, if the {@link
   * InFlightPolicy} waits). The operation did not run.
   *
   * @param retryAfter when a retry may find the result: {@link
   *     IdempotencyConfig#inFlightRetryAfter()} (1 s by default), capped by the owner's remaining
   *     lease, at least one second
   */
  record InFlightConflict(Duration retryAfter) implements Outcome {
    /**
     * @throws NullPointerException if {@code retryAfter} is null
     */
    public InFlightConflict {
      Objects.requireNonNull(retryAfter, "retryAfter");
    }
  }

  /**
   * The key was used before for a different request (another fingerprint). The operation did not
   * run and nothing was replayed: this is a client bug.
   *
   * @param existingState the state of the key's record
   */
  record Mismatch(KeyState existingState) implements Outcome {
    /**
     * @throws NullPointerException if {@code existingState} is null
     */
    public Mismatch {
      Objects.requireNonNull(existingState, "existingState");
    }
  }

  /**
   * The store could not be reached, so nothing was claimed and the operation did not run (fail
   * closed).
   *
   * @param cause what the store threw
   */
  record StoreUnavailable(StoreUnavailableException cause) implements Outcome {
    /**
     * @throws NullPointerException if {@code cause} is null
     */
    public StoreUnavailable {
      Objects.requireNonNull(cause, "cause");
    }
  }
}
