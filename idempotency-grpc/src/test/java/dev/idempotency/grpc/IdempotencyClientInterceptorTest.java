package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.caller;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.client.OperationKey;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.GetChargeRequest;
import dev.idempotency.grpc.test.PaymentServiceGrpc;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.MetadataUtils;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The client interceptor over Netty: the key it puts in the metadata, and the same key on every
 * attempt gRPC's own retry policy makes (a server that refuses every first attempt with UNAVAILABLE
 * records what each attempt carried).
 */
class IdempotencyClientInterceptorTest {
  @Test
  void everyAttemptOfOneCallCarriesItsOneKey() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    ServerInterceptor firstAttemptFails =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            String key = String.valueOf(headers.get(GrpcIdempotencyMetadata.KEY_HEADER));
            seen.add(key);
            if (attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() == 1) {
              call.close(Status.UNAVAILABLE.withDescription("first attempt"), new Metadata());
              return new ServerCall.Listener<>() {};
            }
            return Contexts.interceptCall(
                Context.current().withValue(GrpcServers.CALLER, "acct-1"), call, headers, next);
          }
        };
    TestPayments payments = new TestPayments();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    io.grpc.Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .executor(pool)
            .addService(ServerInterceptors.intercept(payments, firstAttemptFails))
            .build()
            .start();
    ManagedChannel channel =
        GrpcServers.channel(
            server.getPort(),
            b ->
                b.intercept(IdempotencyClientInterceptor.create())
                    .defaultServiceConfig(
                        GrpcRetryServiceConfig.forServices(
                            dev.idempotency.client.RetryPolicy.builder()
                                .backoff(
                                    dev.idempotency.client.Backoff.fullJitter(
                                        java.time.Duration.ofMillis(10),
                                        java.time.Duration.ofMillis(50)))
                                .build(),
                            "idempotency.test.PaymentService"))
                    .enableRetry());
    try {
      PaymentServiceGrpc.PaymentServiceBlockingStub stub =
          PaymentServiceGrpc.newBlockingStub(channel)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(caller("acct-1")));
      ChargeRequest charge = ChargeRequest.newBuilder().setOrderId("c-1").build();

      stub.charge(charge); // minted: two attempts, one key
      assertThat(seen).hasSize(2);
      assertThat(seen.get(0)).isEqualTo(seen.get(1)).isNotEqualTo("null");

      stub.charge(charge); // a new call: a new key
      assertThat(seen).hasSize(4);
      assertThat(seen.get(2)).isEqualTo(seen.get(3)).isNotEqualTo(seen.get(0));

      OperationKey derived = OperationKey.forEvent("charge", "c-1");
      stub.withOption(IdempotencyClientInterceptor.OPERATION_KEY, derived).charge(charge);
      assertThat(seen.subList(4, 6)).containsOnly(derived.value());

      Metadata own = new Metadata();
      own.put(GrpcIdempotencyMetadata.KEY_HEADER, "callers-own");
      stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(own)).charge(charge);
      assertThat(seen.subList(6, 8)).containsOnly("callers-own");

      // a NO_SIDE_EFFECTS read gets no minted key
      stub.getCharge(GetChargeRequest.newBuilder().setChargeId("c-1").build());
      assertThat(seen.subList(8, 10)).containsOnly("null");
    } finally {
      GrpcServers.close(channel);
      server.shutdownNow();
      pool.shutdownNow();
      boolean ended = server.awaitTermination(10, TimeUnit.SECONDS);
      ended &= pool.awaitTermination(10, TimeUnit.SECONDS);
      payments.close();
      assertThat(ended).as("server and pool ended").isTrue();
    }
  }
}
