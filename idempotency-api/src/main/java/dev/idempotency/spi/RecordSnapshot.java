package dev.idempotency.spi;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A read-only copy of one stored record, as {@link KeyStore#lookup(RecordId)} and {@link
 * KeyStore#findAbandoned(Instant, int)} return it. Times are by the clock the store judges time by.
 *
 * @param id the record's identity
 * @param state {@code IN_FLIGHT} or {@code COMPLETE} (an absent record has no snapshot); a
 *     completed record past its replay window is still reported as {@code COMPLETE} here until it
 *     is purged or reclaimed
 * @param fingerprint the fingerprint of the request that claimed it
 * @param fence the current fence token
 * @param leaseExpiresAt when the current lease expires; present exactly while in flight
 * @param recoveryPoint the last committed recovery point, if any; kept after completion
 * @param response the stored response; present exactly when complete
 * @param completedAt when it completed; present exactly when complete
 */
public record RecordSnapshot(
    RecordId id,
    KeyState state,
    Fingerprint fingerprint,
    FenceToken fence,
    Optional<Instant> leaseExpiresAt,
    Optional<RecoveryPoint> recoveryPoint,
    Optional<StoredResponse> response,
    Optional<Instant> completedAt) {

  /**
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code state} is {@code ABSENT}, or the optional parts do
   *     not match it
   */
  public RecordSnapshot {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
    Objects.requireNonNull(recoveryPoint, "recoveryPoint");
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(completedAt, "completedAt");
    if (state == KeyState.ABSENT) {
      throw new IllegalArgumentException("an absent record has no snapshot");
    }
    boolean complete = state == KeyState.COMPLETE;
    if (complete != response.isPresent() || complete != completedAt.isPresent()) {
      throw new IllegalArgumentException(
          "response and completedAt must be present exactly when COMPLETE");
    }
    if (complete == leaseExpiresAt.isPresent()) {
      throw new IllegalArgumentException("leaseExpiresAt must be present exactly while IN_FLIGHT");
    }
  }
}
