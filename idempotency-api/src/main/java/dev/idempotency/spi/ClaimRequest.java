package dev.idempotency.spi;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The arguments of {@link KeyStore#claim(ClaimRequest)}.
 *
 * @param id the record to claim
 * @param fingerprint the fingerprint of the request now presenting the key
 * @param now the engine's current time; a store with {@link StoreCapability#SERVER_CLOCK} uses its
 *     own instead
 * @param lease how long a won claim holds the record before another claim may take it over;
 *     positive
 * @param replayWindow how long after completion the stored response is replayed; past it the record
 *     counts as absent; positive
 */
public record ClaimRequest(
    RecordId id, Fingerprint fingerprint, Instant now, Duration lease, Duration replayWindow) {
  /**
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code lease} or {@code replayWindow} is not positive
   */
  public ClaimRequest {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(replayWindow, "replayWindow");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be > 0, but was " + lease);
    }
    if (replayWindow.isNegative() || replayWindow.isZero()) {
      throw new IllegalArgumentException("replayWindow must be > 0, but was " + replayWindow);
    }
  }
}
