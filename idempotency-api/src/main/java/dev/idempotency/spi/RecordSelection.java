package dev.idempotency.spi;

import dev.idempotency.KeyState;
import java.time.Instant;
import java.util.Objects;

/**
 * Which records {@link KeyStore#list(RecordQuery)} returns: a state, and for in-flight records
 * whether the lease has run out at the query's {@code now} (by the store's own clock when it has
 * {@link StoreCapability#SERVER_CLOCK}). Released records count as absent and are never listed.
 */
public enum RecordSelection {
  /** In flight with an expired lease ({@code leaseExpiresAt <= now}): nobody renews it. */
  ABANDONED,
  /** {@link #ABANDONED}, with a recovery point: a takeover resumes it from that point. */
  ABANDONED_WITH_RECOVERY_POINT,
  /**
   * {@link #ABANDONED}, without a recovery point: whether the work ran is unknown, so a takeover
   * runs it from the start.
   */
  ABANDONED_WITHOUT_RECOVERY_POINT,
  /** In flight with a live lease ({@code now < leaseExpiresAt}): an owner is working on it. */
  LIVE,
  /** Complete, whether or not its replay window has passed, until it is purged or reclaimed. */
  COMPLETE;

  /**
   * Whether {@code record} belongs to this selection at {@code now}: the one definition every
   * store's listing and the TCK judge by.
   *
   * @throws NullPointerException if an argument is null
   */
  public boolean matches(RecordSnapshot record, Instant now) {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(now, "now");
    if (this == COMPLETE) {
      return record.state() == KeyState.COMPLETE;
    }
    if (record.state() != KeyState.IN_FLIGHT) {
      return false;
    }
    boolean expired = !now.isBefore(record.leaseExpiresAt().orElseThrow());
    return switch (this) {
      case ABANDONED -> expired;
      case ABANDONED_WITH_RECOVERY_POINT -> expired && record.recoveryPoint().isPresent();
      case ABANDONED_WITHOUT_RECOVERY_POINT -> expired && record.recoveryPoint().isEmpty();
      case LIVE -> !expired;
      case COMPLETE -> throw new AssertionError("handled above");
    };
  }
}
