package dev.idempotency.store.jdbc;

import dev.idempotency.testing.TestDatabases;
import org.junit.jupiter.api.Tag;

/**
 * The TCK against {@link TestDatabases#H2}, time judged by the database clock with short real
 * leases. Tagged {@code database-clock}: it waits for those leases in real time (about 45 s) and
 * tests H2's clock, not the JDK's, so the second JDK's run in scripts/test.sh leaves it out.
 */
@Tag("database-clock")
class H2DatabaseClockKeyStoreContractTest extends JdbcKeyStoreContract {
  @Override
  TestDatabases db() {
    return TestDatabases.H2;
  }

  @Override
  ClockSource clockSource() {
    return ClockSource.DATABASE;
  }
}
