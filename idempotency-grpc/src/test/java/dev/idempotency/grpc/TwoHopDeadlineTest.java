package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.LedgerServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two hops, two Netty servers: the caller → PaymentService (guarded) → LedgerService. gRPC sends a
 * deadline as the time left ({@code grpc-timeout}), and the handler's call to the ledger runs in
 * the guarded call's context, so the ledger sees what is left of the caller's deadline.
 */
class TwoHopDeadlineTest {
  @Test
  void theDownstreamServiceSeesTheCallersRemainingDeadlineNotAFreshOne() throws Exception {
    TestPayments.Ledger ledger = new TestPayments.Ledger();
    IdempotencyEngine ledgerEngine = IdempotencyEngine.builder(new InMemoryKeyStore()).build();
    try (GrpcFixture payments = GrpcFixture.start();
        GrpcServers.Running ledgerServer =
            GrpcServers.start(
                4,
                IdempotencyServerInterceptor.builder(ledgerEngine, GrpcServers.scopes()).build(),
                ledger)) {
      ManagedChannel toLedger = GrpcServers.channel(ledgerServer.port(), b -> b);
      try {
        // the payment service calls the ledger as an anonymous internal caller with the ledger's
        // own
        // stub: no deadline of its own
        payments.payments.ledger(
            LedgerServiceGrpc.newBlockingStub(toLedger)
                .withInterceptors(
                    io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(
                        callerAndKey("payments", "ledger-4711"))));

        ChargeReply reply =
            payments
                .stub(callerAndKey("acct-1", "k-hop"))
                .withDeadlineAfter(3000, TimeUnit.MILLISECONDS)
                .chargeAndRecord(
                    ChargeRequest.newBuilder().setOrderId("4711").setHoldMillis(500).build());

        // 3 s at the caller, 0.5 s spent in the first hop before the ledger call: at most 2.5 s
        // left
        assertThat(reply.getLedgerDeadlineMillis()).isPositive().isLessThanOrEqualTo(2500);
        assertThat(ledger.records).hasValue(1);

        // the caller's deadline is the bound all the way down: too short for the first hop's work,
        // the ledger call fails with the first hop's context, and nothing is recorded twice
        StatusRuntimeException late =
            catchThrowableOfType(
                StatusRuntimeException.class,
                () ->
                    payments
                        .stub(callerAndKey("acct-1", "k-hop-late"))
                        .withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                        .chargeAndRecord(
                            ChargeRequest.newBuilder()
                                .setOrderId("4712")
                                .setHoldMillis(600)
                                .build()));
        assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(ledger.records).hasValue(1);
      } finally {
        GrpcServers.close(toLedger);
      }
    } finally {
      ledgerEngine.close();
    }
  }
}
