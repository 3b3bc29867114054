package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.CompletionOutageGate;
import dev.idempotency.testing.DelegatingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outage gate on the in-memory store, made unreachable on a switch: an outage shorter than the
 * lease runs no work twice; one longer than the lease does, which the gate reports (it is not a
 * gate that always passes).
 */
@Timeout(60)
class CompletionOutageGateTest {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {3});

  /** The shared records, and a switch that makes every instance's calls fail as unreachable. */
  private final InMemoryKeyStore records = new InMemoryKeyStore();

  private volatile boolean down;

  private DelegatingStore instance() {
    return new DelegatingStore(records) {
      private void reach() {
        if (down) {
          throw new StoreUnavailableException("connection refused");
        }
      }

      @Override
      public ClaimOutcome claim(ClaimRequest request) {
        reach();
        return super.claim(request);
      }

      @Override
      public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
        reach();
        super.complete(id, fence, r, now);
      }

      @Override
      public Set<RecordId> heartbeatAll(
          Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
        reach();
        return super.heartbeatAll(leases, now, lease);
      }
    };
  }

  private CompletionOutageGate.Result run(Duration lease, Duration outage) throws Exception {
    try (IdempotencyEngine owner = engine(lease);
        IdempotencyEngine other = engine(lease)) {
      CompletionOutageGate gate =
          new CompletionOutageGate(
              20,
              caller(owner),
              List.of(caller(other), caller(other)),
              new CompletionOutageGate.Fault() {
                @Override
                public void begin() {
                  down = true;
                }

                @Override
                public void end() {
                  down = false;
                }
              },
              outage,
              lease.plusSeconds(1));
      return gate.run("lease-" + lease.toMillis(), Duration.ofSeconds(45));
    }
  }

  private IdempotencyEngine engine(Duration lease) {
    return IdempotencyEngine.builder(instance())
        .config(
            IdempotencyConfig.builder().lease(lease).heartbeatInterval(lease.dividedBy(4)).build())
        .build();
  }

  private static CompletionOutageGate.Caller caller(IdempotencyEngine engine) {
    return (id, work) ->
        engine.execute(
            id,
            FP,
            Work.stepped(
                execution -> {
                  work.run();
                  return StoredResponse.ofUtf8(201, "charged");
                }));
  }

  @Test
  void anOutageShorterThanTheLeaseRunsNoWorkTwice() throws Exception {
    CompletionOutageGate.Result result = run(Duration.ofSeconds(3), Duration.ofMillis(1500));

    assertThat(result.keysRunTwice()).as("%s", result).isZero();
    assertThat(result.keysNeverRun()).isZero();
    assertThat(result.duplicatesSent()).isGreaterThan(20);
  }

  @Test
  void anOutageLongerThanTheLeaseIsCaughtRunningWorkTwice() throws Exception {
    CompletionOutageGate.Result result = run(Duration.ofMillis(800), Duration.ofMillis(2500));

    assertThat(result.keysRunTwice()).as("%s", result).isPositive();
  }
}
