package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static dev.idempotency.grpc.GrpcTestCalls.assertRefusal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.grpc.GrpcTestCalls.Refused;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.Misbehaviour;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import io.grpc.StatusRuntimeException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * An answer the handler gave but that could not be stored (larger than the binding or the store
 * keeps, or refused by the store) reaches its first caller whole; a retry with the key gets {@code
 * INTERNAL IDEMPOTENCY_RESPONSE_NOT_STORED}, not retryable, and the handler never runs again. The
 * binding's own limit ({@code maxStoredResponseBytes}) is checked against the store's ({@link
 * KeyStore#maxResponseBytes()}) when the interceptor is built.
 */
class GrpcResponseNotStoredTest {
  private static final int STORE_LIMIT = 4096;

  @Test
  void aResponseTheStoreRefusedIsReplayedAsResponseNotStoredAndTheHandlerNeverRunsAgain()
      throws Exception {
    KeyStore store =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public void complete(
              RecordId id, FenceToken fence, StoredResponse response, Instant now) {
            if (response.notStoredReason().isEmpty()) {
              throw new KeyStoreException("ERR value refused by the store's own rule");
            }
            super.complete(id, fence, response, now);
          }
        };
    try (GrpcFixture f = new GrpcFixture(store, 4, e -> e, c -> c)) {
      ChargeRequest charge = charge("4711");
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-refused")).charge(charge);
      assertThat(first.getChargeId()).isEqualTo("ch-4711-1");

      for (int retry = 0; retry < 2; retry++) {
        assertNotStored(f, "k-refused", charge);
      }
      assertThat(f.payments.runs("4711")).isEqualTo(1);
      assertThat(f.eventsOf(IdempotencyEvent.ResponseNotStored.class)).isEqualTo(1);
    }
  }

  @Test
  void anAnswerWhoseStoredMetadataHoldsALineBreakIsReplayedAsResponseNotStored() throws Exception {
    // the stored form keeps no CR, LF or NUL; releasing the key instead would run the handler again
    try (GrpcFixture f =
        new GrpcFixture(
            new InMemoryKeyStore(), 4, e -> e, c -> c.storedMetadata("x-decline-note"))) {
      ChargeRequest charge =
          charge("4712").toBuilder()
              .setMisbehaviour(Misbehaviour.DECLINE_WITH_MULTILINE_NOTE)
              .build();
      assertThatThrownBy(() -> f.stub(callerAndKey("acct-1", "k-note")).charge(charge))
          .as("the first caller gets the live answer, or what the transport makes of its trailer")
          .isInstanceOf(StatusRuntimeException.class);

      for (int retry = 0; retry < 2; retry++) {
        assertNotStored(f, "k-note", charge);
      }
      assertThat(f.payments.runs("4712")).as("the handler's runs").isEqualTo(1);
      StoredResponse stored =
          f.store.lookup(RecordId.of("acct-1", "k-note")).orElseThrow().response().orElseThrow();
      assertThat(stored.notStoredReason())
          .hasValueSatisfying(reason -> assertThat(reason).contains("x-decline-note"));
    }
  }

  @Test
  void anAnswerWithinTheBindingsLimitButLargerThanTheStoreKeepsIsReplayedAsResponseNotStored()
      throws Exception {
    // the binding counts the message, the store the message and the stored status and metadata
    try (GrpcFixture f = new GrpcFixture(limitedStore(), 4, e -> e, c -> c)) {
      ChargeRequest charge = charge("x".repeat(STORE_LIMIT - 30));
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-edge")).charge(charge);
      assertThat(first.getSerializedSize()).isLessThanOrEqualTo(STORE_LIMIT);

      assertNotStored(f, "k-edge", charge);
      assertThat(f.payments.runs(charge.getOrderId())).isEqualTo(1);
      assertThat(f.eventsOf(IdempotencyEvent.ResponseNotStored.class))
          .as("the engine stored its marker")
          .isEqualTo(1);
    }
  }

  @Test
  void anUnsetLimitFollowsTheStoresSmallerOneAndTheBindingsMarkerNamesIt() throws Exception {
    try (GrpcFixture f = new GrpcFixture(limitedStore(), 4, e -> e, c -> c)) {
      ChargeRequest charge = charge("y".repeat(STORE_LIMIT));
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-large")).charge(charge);
      assertThat(first.getSerializedSize()).isGreaterThan(STORE_LIMIT);

      assertNotStored(f, "k-large", charge);
      assertThat(f.payments.runs(charge.getOrderId())).isEqualTo(1);
      StoredResponse stored =
          f.store.lookup(RecordId.of("acct-1", "k-large")).orElseThrow().response().orElseThrow();
      assertThat(stored.notStoredReason())
          .as("the binding's marker, at the binding's limit (before the store refused anything)")
          .hasValueSatisfying(
              reason ->
                  assertThat(reason)
                      .endsWith("maxStoredResponseBytes (" + STORE_LIMIT + " bytes)"));
      assertThat(f.eventsOf(IdempotencyEvent.ResponseNotStored.class)).isZero();
    }
  }

  @Test
  void aLimitLargerThanTheStoreKeepsIsRefusedAtBuildNamingBothSettings() {
    try (IdempotencyEngine engine = IdempotencyEngine.builder(limitedStore()).build()) {
      IdempotencyServerInterceptor.Builder builder =
          IdempotencyServerInterceptor.builder(engine, GrpcServers.scopes())
              .maxStoredResponseBytes(STORE_LIMIT + 1);

      assertThatThrownBy(builder::build)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxStoredResponseBytes is " + (STORE_LIMIT + 1))
          .hasMessageContaining("maxResponseBytes()")
          .hasMessageContaining("at most " + STORE_LIMIT);
    }
  }

  @Test
  void aLimitTheStoreKeepsIsAccepted() {
    try (IdempotencyEngine engine = IdempotencyEngine.builder(limitedStore()).build()) {
      assertThat(
              IdempotencyServerInterceptor.builder(engine, GrpcServers.scopes())
                  .maxStoredResponseBytes(STORE_LIMIT)
                  .build())
          .isNotNull();
    }
  }

  @Test
  void aStoreTooSmallForTheBindingsMarkerIsRefusedAtBuild() {
    KeyStore tiny =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public long maxResponseBytes() {
            return 64;
          }
        };
    try (IdempotencyEngine engine = IdempotencyEngine.builder(tiny).build()) {
      assertThatThrownBy(
              () -> IdempotencyServerInterceptor.builder(engine, GrpcServers.scopes()).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("at most 64 bytes (its maxResponseBytes())")
          .hasMessageContaining("not-stored marker");
    }
  }

  private static void assertNotStored(GrpcFixture f, String key, ChargeRequest charge) {
    Refused r =
        assertRefusal(
            () -> f.stub(callerAndKey("acct-1", key)).charge(charge),
            IdempotencyErrorReason.IDEMPOTENCY_RESPONSE_NOT_STORED);
    assertThat(r.retry().hasRetryDelay()).as("not retryable: no RetryInfo").isFalse();
    assertThat(r.status().getDescription()).contains("processed");
  }

  private static ChargeRequest charge(String orderId) {
    return ChargeRequest.newBuilder().setOrderId(orderId).setAmountCents(4200).build();
  }

  /** An in-memory store that keeps responses of at most {@link #STORE_LIMIT} bytes. */
  private static KeyStore limitedStore() {
    return new DelegatingStore(new InMemoryKeyStore()) {
      @Override
      public long maxResponseBytes() {
        return STORE_LIMIT;
      }

      @Override
      public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
        if (response.size() > STORE_LIMIT) {
          throw new KeyStoreException(
              "the response (" + response.size() + " bytes) is larger than " + STORE_LIMIT);
        }
        super.complete(id, fence, response, now);
      }
    };
  }
}
