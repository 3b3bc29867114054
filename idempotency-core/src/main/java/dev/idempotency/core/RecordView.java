package dev.idempotency.core;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a person sees of one record: everything {@link RecordSnapshot} holds except the stored body,
 * which may carry a customer's data and is shown only when asked ({@link
 * KeyStoreAdmin#showWithBody}). Of a stored response it keeps the status, the size and, for a
 * not-stored marker, the reason the response was not stored.
 *
 * @param id the record
 * @param state {@code IN_FLIGHT} or {@code COMPLETE}
 * @param fingerprint the fingerprint of the request that claimed it
 * @param fence the current fence token
 * @param leaseExpiresAt when the lease ends (in flight)
 * @param recoveryPoint the last recovery point, if any
 * @param completedAt when it completed (complete)
 * @param status the stored response's status (complete)
 * @param responseBytes the stored response's size, as {@link dev.idempotency.StoredResponse#size()}
 *     counts it (complete)
 * @param notStoredReason why the response was not stored, when a marker stands for it
 */
public record RecordView(
    RecordId id,
    KeyState state,
    Fingerprint fingerprint,
    FenceToken fence,
    Optional<Instant> leaseExpiresAt,
    Optional<RecoveryPoint> recoveryPoint,
    Optional<Instant> completedAt,
    OptionalInt status,
    OptionalLong responseBytes,
    Optional<String> notStoredReason) {

  /**
   * @throws NullPointerException if an argument is null
   */
  public RecordView {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
    Objects.requireNonNull(recoveryPoint, "recoveryPoint");
    Objects.requireNonNull(completedAt, "completedAt");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(responseBytes, "responseBytes");
    Objects.requireNonNull(notStoredReason, "notStoredReason");
  }

  /** The view of {@code snapshot}: the same, without the body. */
  public static RecordView of(RecordSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    return new RecordView(
        snapshot.id(),
        snapshot.state(),
        snapshot.fingerprint(),
        snapshot.fence(),
        snapshot.leaseExpiresAt(),
        snapshot.recoveryPoint(),
        snapshot.completedAt(),
        snapshot.response().map(r -> OptionalInt.of(r.status())).orElse(OptionalInt.empty()),
        snapshot.response().map(r -> OptionalLong.of(r.size())).orElse(OptionalLong.empty()),
        snapshot.response().flatMap(r -> r.notStoredReason()));
  }
}
