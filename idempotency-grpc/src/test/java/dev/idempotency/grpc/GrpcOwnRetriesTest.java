package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.caller;
import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.client.Backoff;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.GetChargeRequest;
import dev.idempotency.grpc.test.PaymentServiceGrpc;
import dev.idempotency.testing.Http2ResponseCuttingProxy;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * gRPC's own retries (the service config from {@link GrpcRetryServiceConfig}) against the server
 * binding, with the client interceptor's keys: dropped responses, the in-flight answer's pushback.
 */
class GrpcOwnRetriesTest {
  private static final RetryPolicy FAST =
      RetryPolicy.builder()
          .maxAttempts(5)
          .backoff(Backoff.fullJitter(Duration.ofMillis(20), Duration.ofMillis(200)))
          .deadline(Duration.ofSeconds(20))
          .build();

  @Test
  void underDroppedResponsesEveryCallEndsAndEachKeyRanOnce() throws Exception {
    try (GrpcFixture f = GrpcFixture.start();
        Http2ResponseCuttingProxy proxy = Http2ResponseCuttingProxy.start(f.server.port())) {
      Random seeded = new Random(17);
      proxy.cutResponses(n -> seeded.nextInt(100) < 35); // 35 % of the responses are lost
      ManagedChannel channel =
          GrpcServers.channel(
              proxy.port(),
              b ->
                  b.intercept(IdempotencyClientInterceptor.create())
                      .defaultServiceConfig(
                          GrpcRetryServiceConfig.forServices(
                              FAST, PaymentServiceGrpc.getServiceDescriptor()))
                      .enableRetry()
                      .maxRetryAttempts(FAST.maxAttempts()));
      try {
        PaymentServiceGrpc.PaymentServiceBlockingStub stub =
            PaymentServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(caller("acct-1")));
        Map<String, Status.Code> ends = new HashMap<>();
        for (int i = 0; i < 40; i++) {
          String order = "o-" + i;
          try {
            ChargeReply reply =
                stub.withOption(
                        IdempotencyClientInterceptor.OPERATION_KEY,
                        OperationKey.forEvent("charge", order))
                    .charge(ChargeRequest.newBuilder().setOrderId(order).setAmountCents(i).build());
            assertThat(reply.getRun()).isEqualTo(1);
            ends.put(order, Status.Code.OK);
          } catch (StatusRuntimeException e) {
            ends.put(order, e.getStatus().getCode());
          }
        }

        assertThat(proxy.cuts()).as("responses lost").isGreaterThanOrEqualTo(5);
        assertThat(ends).hasSize(40);
        assertThat(ends.values()).isSubsetOf(Status.Code.OK, Status.Code.UNAVAILABLE);
        for (Map.Entry<String, Status.Code> end : ends.entrySet()) {
          int runs = f.payments.runs(end.getKey());
          assertThat(runs).as("runs of " + end.getKey()).isLessThanOrEqualTo(1);
          if (end.getValue() == Status.Code.OK) {
            assertThat(runs).as("runs of " + end.getKey()).isEqualTo(1);
          }
        }
        // the lost answers came back as replays to gRPC's retries
        assertThat(f.eventsOf(IdempotencyEvent.Replayed.class)).isGreaterThanOrEqualTo(1);
      } finally {
        GrpcServers.close(channel);
      }
    }
  }

  @Test
  void theInFlightPushbackHoldsGrpcsRetryUntilTheFirstCallsAnswerIsStored() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      CountDownLatch gate = new CountDownLatch(1);
      f.payments.gate.set(gate);
      ManagedChannel retrying = retryingChannel(f.server.port());
      ExecutorService callers = Executors.newFixedThreadPool(2);
      try {
        ChargeRequest held =
            ChargeRequest.newBuilder()
                .setOrderId("p-1")
                .setAmountCents(1)
                .setHoldMillis(-1)
                .build();
        Future<ChargeReply> first =
            callers.submit(() -> f.stub(callerAndKey("acct-1", "k-push")).charge(held));
        GrpcContractTest.awaitRuns(f, "p-1", 1);
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        Future<ChargeReply> duplicate =
            callers.submit(
                () ->
                    PaymentServiceGrpc.newBlockingStub(retrying)
                        .withInterceptors(
                            MetadataUtils.newAttachHeadersInterceptor(
                                callerAndKey("acct-1", "k-push")),
                            MetadataUtils.newCaptureMetadataInterceptor(
                                new AtomicReference<>(), trailers))
                        .charge(held));
        // the duplicate's first attempt meets the key in flight: ABORTED with a pushback of 1 s
        GrpcContractTest.awaitEvent(f, IdempotencyEvent.InFlightConflict.class);
        // inside the pushback gRPC must not try again; its own backoff (20 to 200 ms) would have
        // sent two or more attempts by now
        Thread.sleep(600);
        assertThat(f.eventsOf(IdempotencyEvent.InFlightConflict.class))
            .as("attempts that met the key in flight within the pushback")
            .isEqualTo(1);
        gate.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS).getRun()).isEqualTo(1);
        ChargeReply replayed = duplicate.get(10, TimeUnit.SECONDS);
        assertThat(replayed.getRun()).isEqualTo(1);
        assertThat(trailers.get().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER)).isEqualTo("true");
        assertThat(f.payments.runs("p-1")).isEqualTo(1);
      } finally {
        gate.countDown();
        GrpcContractTest.shutDown(callers);
        GrpcServers.close(retrying);
      }
    }
  }

  @Test
  void theDescriptorFormRetriesUnaryMethodsOnlyNeverAStream() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      ManagedChannel retrying = retryingChannel(f.server.port());
      try {
        PaymentServiceGrpc.PaymentServiceBlockingStub stub =
            PaymentServiceGrpc.newBlockingStub(retrying)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(caller("acct-1")));
        // UNAVAILABLE before any response header: gRPC would retry a call its config names
        StatusRuntimeException failed =
            org.assertj.core.api.Assertions.catchThrowableOfType(
                StatusRuntimeException.class,
                () ->
                    stub.watchCharges(
                            GetChargeRequest.newBuilder().setChargeId("unavailable").build())
                        .hasNext());
        assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(f.payments.watchCalls).as("attempts of the streaming call").hasValue(1);
      } finally {
        GrpcServers.close(retrying);
      }
    }
  }

  /** A channel straight to the server whose gRPC retries follow {@link #FAST}. */
  private static ManagedChannel retryingChannel(int port) {
    return GrpcServers.channel(
        port,
        b ->
            b.defaultServiceConfig(
                    GrpcRetryServiceConfig.forServices(
                        FAST, PaymentServiceGrpc.getServiceDescriptor()))
                .enableRetry()
                .maxRetryAttempts(FAST.maxAttempts()));
  }
}
