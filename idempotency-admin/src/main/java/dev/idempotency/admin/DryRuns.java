package dev.idempotency.admin;

import dev.idempotency.RecordId;
import dev.idempotency.core.KeyStoreAdmin;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Instant;
import java.util.Optional;

/**
 * What an action would answer now, judged from the record as it is, without a claim or any other
 * write: the {@code --dry-run} of {@code release} and {@code extend}.
 */
final class DryRuns {
  private DryRuns() {}

  /**
   * What {@link KeyStoreAdmin#release} would answer now, judged with {@link
   * RecordSelection#matches}.
   */
  static KeyStoreAdmin.Result release(KeyStoreAdmin admin, RecordId id) {
    Optional<RecordSnapshot> seen = admin.showWithBody(id);
    if (seen.isEmpty()) {
      return notFound(id);
    }
    RecordSnapshot record = seen.get();
    Instant now = Instant.now();
    if (RecordSelection.COMPLETE.matches(record, now)) {
      return new KeyStoreAdmin.Result(
          id, KeyStoreAdmin.Status.COMPLETE, id + " is complete; nothing to release");
    }
    if (RecordSelection.LIVE.matches(record, now)) {
      return new KeyStoreAdmin.Result(
          id,
          KeyStoreAdmin.Status.LEASE_LIVE,
          id + " has a live lease until " + record.leaseExpiresAt().orElseThrow());
    }
    return new KeyStoreAdmin.Result(
        id,
        KeyStoreAdmin.Status.RELEASED,
        "would release "
            + id
            + " (abandoned since "
            + record.leaseExpiresAt().orElseThrow()
            + ", recovery point "
            + record.recoveryPoint().map(r -> r.name()).orElse("none")
            + "); nothing changed");
  }

  /**
   * What {@link KeyStoreAdmin#extend(RecordId, Instant, String)} would answer now: any record can
   * be kept longer (a live one too, as extending changes nothing its owner reads), so only a
   * missing one is refused.
   */
  static KeyStoreAdmin.Result extend(KeyStoreAdmin admin, RecordId id, Instant keepUntil) {
    Optional<RecordSnapshot> seen = admin.showWithBody(id);
    if (seen.isEmpty()) {
      return notFound(id);
    }
    RecordSnapshot record = seen.get();
    return new KeyStoreAdmin.Result(
        id,
        KeyStoreAdmin.Status.EXTENDED,
        "would keep "
            + id
            + " ("
            + record.state()
            + ", "
            + record.fence()
            + ") until "
            + keepUntil
            + " at least; nothing changed");
  }

  private static KeyStoreAdmin.Result notFound(RecordId id) {
    return new KeyStoreAdmin.Result(id, KeyStoreAdmin.Status.NOT_FOUND, "no record " + id);
  }
}
