package dev.idempotency.examples.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.examples.grpc.shop.CreatePaymentRequest;
import dev.idempotency.examples.grpc.shop.GetPaymentRequest;
import dev.idempotency.examples.grpc.shop.Payment;
import dev.idempotency.examples.grpc.shop.PaymentServiceGrpc;
import dev.idempotency.grpc.GrpcIdempotencyMetadata;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The example service's answers as docs/grpc.md's status table gives them, over Netty, with keys
 * set by hand (no client interceptor) so that each case is the one named.
 */
class GrpcPaymentsServiceContractTest {
  private GrpcPaymentsServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server = GrpcPaymentsServer.start(true, 0, "contract_" + System.nanoTime());
    channel =
        NettyChannelBuilder.forAddress(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()))
            .usePlaintext()
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    server.close();
  }

  @Test
  void aRetryWithTheSameKeyIsAnsweredFromTheStoreAndChargesOnce() {
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    Payment first = stub("merchant-1", "order-4711").createPayment(payment("pay-1", 4200));
    Payment retry =
        stub("merchant-1", "order-4711")
            .withInterceptors(
                MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), trailers))
            .createPayment(payment("pay-1", 4200));

    assertThat(retry).isEqualTo(first); // the same authorization code: one charge
    assertThat(trailers.get().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER)).isEqualTo("true");
    assertThat(server.cards.chargesOf("pay-1")).isEqualTo(1);
  }

  @Test
  void theSameKeyWithAnotherAmountIsRefusedAndNothingIsCharged() {
    stub("merchant-1", "order-1").createPayment(payment("pay-2", 100));

    assertThatThrownBy(() -> stub("merchant-1", "order-1").createPayment(payment("pay-2", 999)))
        .satisfies(
            e -> assertRefused(e, Status.Code.FAILED_PRECONDITION, "IDEMPOTENCY_KEY_REUSED"));
    assertThat(server.cards.chargesOf("pay-2")).isEqualTo(1);
  }

  @Test
  void aCreateWithoutAKeyIsRefusedBeforeTheServiceRuns() {
    assertThatThrownBy(() -> stub("merchant-1", null).createPayment(payment("pay-3", 100)))
        .satisfies(e -> assertRefused(e, Status.Code.INVALID_ARGUMENT, "IDEMPOTENCY_KEY_MISSING"));
    assertThat(server.cards.chargesOf("pay-3")).isZero();
  }

  @Test
  void keysAreScopedByTheMerchantTheAuthenticationPutInTheContext() {
    Payment one = stub("merchant-1", "shared-key").createPayment(payment("pay-4", 100));
    Payment two = stub("merchant-2", "shared-key").createPayment(payment("pay-4", 100));

    assertThat(two.getAuthorization()).isNotEqualTo(one.getAuthorization());
    assertThat(server.cards.chargesOf("pay-4")).isEqualTo(2);
  }

  @Test
  void aCallWithoutCredentialsIsRefusedByTheApplicationsAuthentication() {
    assertThatThrownBy(
            () ->
                PaymentServiceGrpc.newBlockingStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(key("k-1")))
                    .createPayment(payment("pay-5", 100)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
    assertThat(server.cards.chargesOf("pay-5")).isZero();
  }

  @Test
  void theReadNeedsNoKey() {
    stub("merchant-1", "order-6").createPayment(payment("pay-6", 600));

    Payment read =
        stub("merchant-1", null)
            .getPayment(GetPaymentRequest.newBuilder().setPaymentId("pay-6").build());
    assertThat(read.getAmountCents()).isEqualTo(600);
  }

  private PaymentServiceGrpc.PaymentServiceBlockingStub stub(
      String merchant, @Nullable String key) {
    Metadata headers = MerchantAuth.credentials(merchant);
    if (key != null) {
      headers.merge(key(key));
    }
    return PaymentServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private static Metadata key(String key) {
    Metadata m = new Metadata();
    m.put(GrpcIdempotencyMetadata.KEY_HEADER, key);
    return m;
  }

  private static CreatePaymentRequest payment(String id, long cents) {
    return CreatePaymentRequest.newBuilder().setPaymentId(id).setAmountCents(cents).build();
  }

  private static void assertRefused(Throwable e, Status.Code code, String reason) {
    assertThat(e).isInstanceOf(StatusRuntimeException.class);
    StatusRuntimeException refused = (StatusRuntimeException) e;
    assertThat(refused.getStatus().getCode()).isEqualTo(code);
    Metadata trailers = refused.getTrailers();
    assertThat(trailers).isNotNull();
    assertThat(trailers.get(GrpcIdempotencyMetadata.ERROR_REASON_TRAILER)).isEqualTo(reason);
  }
}
