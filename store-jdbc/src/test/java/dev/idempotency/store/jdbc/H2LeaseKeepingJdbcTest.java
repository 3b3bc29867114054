package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.TestDatabases;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link AbstractLeaseKeepingJdbcTest} on H2, and H2's clock that stands still for a whole
 * transaction.
 */
class H2LeaseKeepingJdbcTest extends AbstractLeaseKeepingJdbcTest {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  /**
   * With the database clock, H2 fixes CURRENT_TIMESTAMP for a transaction from its first use. A
   * phase whose work reads the clock first (a created_at column, say) and then runs past the lease
   * must still commit a lease that ends a full lease after its fenced write, not one dated from the
   * work's start and already over.
   */
  @Test
  void aLongPhaseOnTheDatabaseClockCommitsALeaseFromItsEnd() throws Exception {
    JdbcKeyStore store = storeOn(newPool(2)).clockSource(ClockSource.DATABASE).build();
    Duration lease = Duration.ofMillis(800);
    RecordId id = newId();
    ClaimOutcome.Claimed claimed =
        (ClaimOutcome.Claimed)
            store.claim(new ClaimRequest(id, FP, Instant.now(), lease, Duration.ofHours(24)));
    AtomicReference<Instant> workEnd = new AtomicReference<>();
    store.inPhase(
        id,
        claimed.fence(),
        RecoveryPoint.of("charged"),
        Instant.now(),
        lease,
        c -> {
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT CURRENT_TIMESTAMP")) {
            rs.next(); // the work's first use of the clock fixes it for the transaction
          }
          Thread.sleep(lease.toMillis() + 400); // a phase longer than the lease
          workEnd.set(Instant.now());
          return null;
        });
    Instant leaseEnd = store.lookup(id).orElseThrow().leaseExpiresAt().orElseThrow();
    assertThat(leaseEnd)
        .as(
            "the lease the phase committed (the work ended at %s; a lease dated from the work's"
                + " start has ended already, and a retry would take the live owner over)",
            workEnd.get())
        .isAfterOrEqualTo(workEnd.get().plus(lease));
  }
}
