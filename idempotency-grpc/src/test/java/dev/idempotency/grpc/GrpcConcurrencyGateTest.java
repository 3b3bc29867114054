package dev.idempotency.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import org.junit.jupiter.api.Test;

/** The concurrency gate over Netty: 32 calls with one key, one run. */
class GrpcConcurrencyGateTest {
  static final int N = 32;

  @Test
  void thirtyTwoCallsWithOneKeyRunTheHandlerOnce() throws Exception {
    try (GrpcFixture f = new GrpcFixture(new InMemoryKeyStore(), N, e -> e, c -> c)) {
      GrpcConcurrencyGate.Result r = GrpcConcurrencyGate.race(f, N, "k-race");

      assertThat(r.runs()).isEqualTo(1);
      assertThat(r.ok()).isEqualTo(1);
      assertThat(r.inFlight()).isEqualTo(N - 1);
      assertThat(r.others()).isEmpty();
    }
  }

  /**
   * The gate's own proof: over a store without a unique constraint on the key (each caller's claim
   * lands on a record of its own, so every claim wins), the same race runs the handler more than
   * once.
   */
  @Test
  void theGateCatchesAClaimThatIsNotAtomic() throws Exception {
    InMemoryKeyStore real = new InMemoryKeyStore();
    KeyStore racy =
        new DelegatingStore(real) {
          @Override
          public synchronized ClaimOutcome claim(ClaimRequest request) {
            // each caller claims a record of its own: what a store without a unique constraint does
            return super.claim(
                new ClaimRequest(
                    dev.idempotency.RecordId.of(
                        "racy-" + Thread.currentThread().getId(), request.id().key().value()),
                    request.fingerprint(),
                    request.now(),
                    request.lease(),
                    request.replayWindow()));
          }
        };
    try (GrpcFixture f = new GrpcFixture(racy, N, e -> e, c -> c)) {
      GrpcConcurrencyGate.Result r = GrpcConcurrencyGate.race(f, 4, "k-racy");
      assertThat(r.runs()).isGreaterThan(1);
    }
  }
}
