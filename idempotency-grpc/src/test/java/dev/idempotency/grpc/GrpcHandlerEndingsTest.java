package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static dev.idempotency.grpc.GrpcTestCalls.assertRefusal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.StoredResponsePolicy;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.Misbehaviour;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * How a handler's run ends, where the side effect has happened but the answer is unusual: too large
 * to store under a stored-response policy, an exception after the answer, two answers, an
 * asynchronous failure; and a stored answer that no longer parses. Each test asserts how often the
 * handler ran: a retry that runs it again repeats the side effect.
 */
class GrpcHandlerEndingsTest {
  private static final ChargeRequest CHARGE =
      ChargeRequest.newBuilder().setOrderId("4711").setAmountCents(4200).build();

  @Test
  void anOversizedOkUnderAPolicyExcluding500IsNeverRunAgain() throws Exception {
    // the not-stored marker is INTERNAL (HTTP 500): the policy must judge the handler's OK, not it
    try (GrpcFixture f =
        new GrpcFixture(
            new InMemoryKeyStore(),
            4,
            e -> e.storedResponsePolicy(StoredResponsePolicy.storeAllExcept(500, 502, 503, 504)),
            c -> c.maxStoredResponseBytes(8))) {
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-big")).charge(CHARGE);
      assertThat(first.getChargeId()).isEqualTo("ch-4711-1");

      assertRefusal(
          () -> f.stub(callerAndKey("acct-1", "k-big")).charge(CHARGE),
          IdempotencyErrorReason.IDEMPOTENCY_RESPONSE_NOT_STORED);
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void anOversizedAnswerWhoseMarkerTheStoreRefusesStillReachesItsCaller() throws Exception {
    // the handler charged and answered; a store error while committing the not-stored marker must
    // not turn that answer into UNKNOWN (a caller would retry a charge that happened)
    KeyStore refusingCompletions = GrpcFixture.refusingCompletions();
    try (GrpcFixture f =
        new GrpcFixture(refusingCompletions, 4, e -> e, c -> c.maxStoredResponseBytes(8))) {
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-refused")).charge(CHARGE);

      assertThat(first.getChargeId()).isEqualTo("ch-4711-1");
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void anOversizedAnswerWhoseStatusThePolicyExcludesReleasesTheKey() throws Exception {
    // a small OK would release the key under this policy; an oversized one must too, rather than
    // store the marker (whose own status, 500, the policy would keep)
    try (GrpcFixture f =
        new GrpcFixture(
            new InMemoryKeyStore(),
            4,
            e -> e.storedResponsePolicy(StoredResponsePolicy.storeAllExcept(200)),
            c -> c.maxStoredResponseBytes(8))) {
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-unstored")).charge(CHARGE);
      assertThat(first.getRun()).isEqualTo(1);
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-unstored"))).isEmpty();

      ChargeReply retry = f.stub(callerAndKey("acct-1", "k-unstored")).charge(CHARGE);
      assertThat(retry.getRun()).isEqualTo(2);
      assertThat(f.payments.runs("4711")).isEqualTo(2);
    }
  }

  @Test
  void aHandlerThatThrowsAfterAnsweringHasItsAnswerStoredAndReplayed() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      ChargeRequest request =
          CHARGE.toBuilder().setMisbehaviour(Misbehaviour.THROW_AFTER_ANSWERING).build();
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-throw-late")).charge(request);
      ChargeReply retry = f.stub(callerAndKey("acct-1", "k-throw-late")).charge(request);

      assertThat(first.getRun()).isEqualTo(1);
      assertThat(retry).isEqualTo(first);
      assertThat(f.payments.runs("4711")).isEqualTo(1);
      assertThat(f.eventsOf(dev.idempotency.event.IdempotencyEvent.Replayed.class)).isEqualTo(1);
    }
  }

  @Test
  void aHandlerThatAnswersTwiceGetsInternalTooManyResponsesStoredAndReplayed() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      ChargeRequest request = CHARGE.toBuilder().setMisbehaviour(Misbehaviour.ANSWER_TWICE).build();
      StatusRuntimeException first =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-twice")).charge(request));
      StatusRuntimeException retry =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-twice")).charge(request));

      assertThat(first.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(first.getStatus().getDescription()).isEqualTo("Too many responses");
      assertThat(retry.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(retry.getTrailers().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER))
          .isEqualTo("true");
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void anAsynchronousFailureWithAPlainExceptionReleasesTheKeyLikeAThrow() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      ChargeRequest request =
          CHARGE.toBuilder().setMisbehaviour(Misbehaviour.FAIL_ASYNCHRONOUSLY).build();
      StatusRuntimeException first =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-async-fail")).charge(request));
      assertThat(first.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-async-fail"))).isEmpty();

      StatusRuntimeException retry =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-async-fail")).charge(request));
      assertThat(retry.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
      assertThat(retry.getTrailers().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER)).isNull();
      assertThat(f.payments.runs("4711")).isEqualTo(2);

      // an UNKNOWN the handler chose (a status, no plain exception behind it) is an answer: stored
      ChargeRequest answeredUnknown =
          CHARGE.toBuilder()
              .setOrderId("4712")
              .setFailWithCode(Status.Code.UNKNOWN.value())
              .build();
      catchThrowableOfType(
          StatusRuntimeException.class,
          () -> f.stub(callerAndKey("acct-1", "k-unknown")).charge(answeredUnknown));
      StatusRuntimeException replayed =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-unknown")).charge(answeredUnknown));
      assertThat(replayed.getTrailers().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER))
          .isEqualTo("true");
      assertThat(f.payments.runs("4712")).isEqualTo(1);
    }
  }

  @Test
  void aStoredMessageThatNoLongerParsesIsInternalCannotBeReplayed() throws Exception {
    // the record's message bytes are not a ChargeReply (the response type changed across a deploy)
    KeyStore rewriting =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public void complete(
              RecordId id, FenceToken fence, StoredResponse response, Instant now) {
            super.complete(
                id,
                fence,
                StoredResponse.of(response.status(), response.headers(), new byte[] {(byte) 0xff}),
                now);
          }
        };
    try (GrpcFixture f = new GrpcFixture(rewriting, 4, e -> e, c -> c)) {
      f.stub(callerAndKey("acct-1", "k-unparsable")).charge(CHARGE);
      StatusRuntimeException retry =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-unparsable")).charge(CHARGE));

      assertThat(retry.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(retry.getStatus().getDescription())
          .isEqualTo("the stored answer of this key cannot be replayed");
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }
}
