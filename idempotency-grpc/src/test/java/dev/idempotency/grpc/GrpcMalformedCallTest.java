package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.RecordId;
import dev.idempotency.grpc.test.ChargeRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client that breaks the unary shape of Charge (it streams its requests): the call ends at once
 * and nothing is claimed. gRPC's own server call cancels a unary call at its second request message
 * (INTERNAL "Too many requests"), before the binding sees it; a half-close without a request is the
 * binding's INTERNAL.
 */
class GrpcMalformedCallTest {
  /** Charge as a client-streaming method: the client may send any number of requests. */
  private static final MethodDescriptor<byte[], byte[]> STREAMED_CHARGE =
      GrpcTestCalls.RAW_CHARGE.toBuilder()
          .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
          .build();

  private static final byte[] CHARGE =
      ChargeRequest.newBuilder().setOrderId("4711").setAmountCents(4200).build().toByteArray();

  @Test
  void aSecondRequestMessageEndsTheCallAtOnceAndNothingIsClaimed() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      // two messages and no half-close: the call must end at the second, not wait for a
      // half-close until its deadline (5 s)
      Status status = call(f, "k-two", 2, false);

      // the server's INTERNAL "Too many requests" ends a stream the client has not half-closed, so
      // it goes with a RST_STREAM, which the client reports as CANCELLED
      assertThat(status.getCode())
          .as(status.toString())
          .isIn(Status.Code.INTERNAL, Status.Code.CANCELLED);
      assertThat(f.payments.totalRuns()).isZero();
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-two"))).isEmpty();
    }
  }

  @Test
  void aHalfCloseWithoutARequestIsInternalAndNothingIsClaimed() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      Status status = call(f, "k-none", 0, true);

      assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(status.getDescription()).isEqualTo("Half-closed without a request");
      assertThat(f.payments.totalRuns()).isZero();
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-none"))).isEmpty();
    }
  }

  /** Sends {@code messages} requests, half-closes if told, and returns the closing status. */
  private static Status call(GrpcFixture f, String key, int messages, boolean halfClose)
      throws Exception {
    Channel channel =
        ClientInterceptors.intercept(
            f.channel, MetadataUtils.newAttachHeadersInterceptor(callerAndKey("acct-1", key)));
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            STREAMED_CHARGE, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS));
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(1);
    for (int i = 0; i < messages; i++) {
      call.sendMessage(CHARGE);
    }
    if (halfClose) {
      call.halfClose();
    }
    try {
      return closed.get(10, TimeUnit.SECONDS);
    } finally {
      call.cancel("the test is done", null);
    }
  }
}
