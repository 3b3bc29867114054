package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static dev.idempotency.grpc.GrpcTestCalls.assertRefusal;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.grpc.GrpcTestCalls.Refused;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.Misbehaviour;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every kind of error a key store throws reaches the caller as a documented status with a reason,
 * never as gRPC's {@code UNKNOWN}: at the claim (the handler does not run), at a store call the
 * handler makes (a checkpoint), and while the answer is stored (the caller gets the answer). The
 * store's own message stays in the server's log.
 */
class GrpcStoreErrorsTest {
  private static final ChargeRequest CHARGE =
      ChargeRequest.newBuilder().setOrderId("4711").setAmountCents(4200).build();
  private static final ChargeRequest CHECKPOINTING =
      CHARGE.toBuilder().setMisbehaviour(Misbehaviour.CHECKPOINT_AFTER_CHARGING).build();
  private static final String WRONGTYPE =
      "Redis refused claim of acct-1/k: WRONGTYPE Operation against a key holding the wrong kind"
          + " of value";

  @Test
  void aKeyStoreExceptionFromTheClaimIsInternalStoreErrorAndTheHandlerDoesNotRun()
      throws Exception {
    try (GrpcFixture f = fixture(failingClaims(() -> new KeyStoreException(WRONGTYPE)))) {
      Refused r =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k")).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_STORE_ERROR);

      assertThat(r.status().getDescription())
          .isEqualTo("the idempotency key store failed; nothing was processed");
      assertThat(r.retry().hasRetryDelay()).as("not retryable: no RetryInfo").isFalse();
      assertThat(f.payments.totalRuns()).isZero();
    }
  }

  @Test
  void aPlainRuntimeExceptionFromTheStoreIsInternalStoreErrorToo() throws Exception {
    try (GrpcFixture f =
        fixture(failingClaims(() -> new IllegalStateException("a bug in the store")))) {
      Refused r =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k")).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_STORE_ERROR);

      assertThat(r.status().getDescription()).doesNotContain("a bug in the store");
      assertThat(f.payments.totalRuns()).isZero();
    }
  }

  @Test
  void anOutageAtTheClaimIsUnavailableWithItsDelayAndTheHandlerDoesNotRun() throws Exception {
    try (GrpcFixture f =
        fixture(failingClaims(() -> new StoreUnavailableException("connection refused")))) {
      Refused r =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k")).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_STORE_UNAVAILABLE);

      assertThat(r.retryDelay()).isEqualTo(Duration.ofSeconds(5));
      assertThat(f.payments.totalRuns()).isZero();
    }
  }

  @Test
  void anOutageAtTheHandlersCheckpointIsUnavailableAndTheKeyStaysInFlightForARetry()
      throws Exception {
    KeyStore store =
        failingCheckpoints(() -> new StoreUnavailableException("Redis did not answer"));
    try (GrpcFixture f = fixture(store)) {
      Refused r =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k-cp")).charge(CHECKPOINTING),
              IdempotencyErrorReason.IDEMPOTENCY_STORE_UNAVAILABLE);

      assertThat(r.status().getDescription()).contains("a retry with this key resumes it");
      assertThat(f.payments.runs("4711")).isEqualTo(1);
      assertThat(store.lookup(RecordId.of("acct-1", "k-cp")).orElseThrow().state())
          .as("the checkpoint's outcome is unknown: the key is not released")
          .isEqualTo(KeyState.IN_FLIGHT);
    }
  }

  @Test
  void aStoreErrorAtTheHandlersCheckpointIsInternalAndTheKeyIsReleased() throws Exception {
    KeyStore store = failingCheckpoints(() -> new KeyStoreException(WRONGTYPE));
    try (GrpcFixture f = fixture(store)) {
      Refused r =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k-cp")).charge(CHECKPOINTING),
              IdempotencyErrorReason.IDEMPOTENCY_STORE_ERROR);

      assertThat(r.status().getDescription())
          .isEqualTo("the idempotency key store failed while the request ran");
      assertThat(store.lookup(RecordId.of("acct-1", "k-cp"))).isEmpty();
    }
  }

  @Test
  void aStoreErrorWhileTheAnswerIsStoredLeavesTheCallerTheAnswer() throws Exception {
    KeyStore refusingCompletions = GrpcFixture.refusingCompletions();
    try (GrpcFixture f = fixture(refusingCompletions)) {
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-done")).charge(CHARGE);

      assertThat(first.getChargeId()).isEqualTo("ch-4711-1");
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  private static GrpcFixture fixture(KeyStore store) throws Exception {
    return new GrpcFixture(store, 4, e -> e, c -> c);
  }

  private static KeyStore failingClaims(Supplier<RuntimeException> failure) {
    return new DelegatingStore(new InMemoryKeyStore()) {
      @Override
      public ClaimOutcome claim(ClaimRequest request) {
        throw failure.get();
      }
    };
  }

  private static KeyStore failingCheckpoints(Supplier<RuntimeException> failure) {
    return new DelegatingStore(new InMemoryKeyStore()) {
      @Override
      public void checkpoint(
          RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
        throw failure.get();
      }
    };
  }
}
