package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.CompletionOutageGate;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outage gate over a database server of the test's own, frozen with {@code kill -STOP} for the
 * outage and thawed with {@code kill -CONT}: every process of the server stops answering, while the
 * kernel still accepts connections to it, so each call waits until a timeout ends it. One subclass
 * per database.
 */
@Timeout(120)
abstract class AbstractFrozenServerOutageGate {
  /** Starts a server of the test's own. */
  @FunctionalInterface
  interface Starter {
    OwnDatabaseServer start() throws Exception;
  }

  private final String name;
  private final String driverTimeouts;
  private final Starter starter;

  /**
   * @param name a short name for the runs' tables and keys
   * @param driverTimeouts the URL parameters that bound the driver's waits on a server that does
   *     not answer
   * @param starter starts the server
   */
  AbstractFrozenServerOutageGate(String name, String driverTimeouts, Starter starter) {
    this.name = name;
    this.driverTimeouts = driverTimeouts;
    this.starter = starter;
  }

  @Test
  void aServerFrozenForHalfTheLeaseRunsEveryKeyOnce() throws Exception {
    try (OwnDatabaseServer server = starter.start()) {
      JdbcOutageGate.assertEveryKeyRanOnce(
          JdbcOutageGate.frozen(
              name + "_frozen",
              server,
              driverTimeouts,
              JdbcOutageGate.LEASE,
              JdbcOutageGate.OUTAGE));
    }
  }

  /** The gate can fail: a freeze longer than the lease is caught running keys twice. */
  @Test
  @Tag("slow")
  void aServerFrozenLongerThanTheLeaseIsCaughtRunningKeysTwice() throws Exception {
    try (OwnDatabaseServer server = starter.start()) {
      CompletionOutageGate.Result result =
          JdbcOutageGate.frozen(
              name + "_frozen_long",
              server,
              driverTimeouts,
              Duration.ofSeconds(3),
              Duration.ofSeconds(8));

      assertThat(result.keysRunTwice()).as("%s", result).isPositive();
    }
  }
}
