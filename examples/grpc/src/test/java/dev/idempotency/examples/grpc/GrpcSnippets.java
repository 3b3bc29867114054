package dev.idempotency.examples.grpc;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.examples.grpc.shop.PaymentServiceGrpc;
import dev.idempotency.examples.grpc.shop.PaymentServiceGrpc.PaymentServiceBlockingStub;
import dev.idempotency.grpc.GrpcRetryServiceConfig;
import dev.idempotency.grpc.GrpcScopeResolver;
import dev.idempotency.grpc.IdempotencyClientInterceptor;
import dev.idempotency.grpc.IdempotencyServerInterceptor;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.util.concurrent.ExecutorService;

/**
 * The gRPC code of the README and docs/grpc.md, compiled here, where the demo's generated stubs
 * are; the examples module's DocSnippetsTest holds each block equal to its region. The
 * application's own parts the documents name (its service, its authentication) are stand-ins.
 */
final class GrpcSnippets {
  private GrpcSnippets() {}

  /** The application's authentication: it puts the caller in the gRPC Context. */
  static final class AuthInterceptor implements ServerInterceptor {
    static final Context.Key<String> CALLER = Context.key("caller");

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      return next.startCall(call, headers);
    }
  }

  /** The application's service. */
  static final class PaymentService extends PaymentServiceGrpc.PaymentServiceImplBase {}

  /** Auth stands for the application's authentication in the README's shorter form. */
  static final class Auth {
    static final Context.Key<String> CALLER = AuthInterceptor.CALLER;
  }

  static void readme(IdempotencyEngine engine, ServerInterceptor auth, String target) {
    // tag::readme[]
    ServerInterceptors.intercept(
        new PaymentService(),
        IdempotencyServerInterceptor.builder(engine, GrpcScopeResolver.fromContext(Auth.CALLER))
            .build(),
        auth);
    ManagedChannelBuilder.forTarget(target)
        .intercept(IdempotencyClientInterceptor.create())
        .defaultServiceConfig(
            GrpcRetryServiceConfig.forServices(
                RetryPolicy.ofDefaults(),
                PaymentServiceGrpc.getServiceDescriptor())) // its unary methods only
        .enableRetry();
    // end::readme[]
  }

  static PaymentServiceBlockingStub interceptors(
      IdempotencyEngine engine, ExecutorService callPool, String orderId) throws IOException {
    // tag::interceptors[]
    // the server: after the application's authentication, which puts the caller in the gRPC Context
    IdempotencyServerInterceptor idempotency =
        IdempotencyServerInterceptor.builder(
                engine, GrpcScopeResolver.fromContext(AuthInterceptor.CALLER))
            .build();
    Server server =
        NettyServerBuilder.forPort(8443)
            .executor(callPool) // not directExecutor(): the binding blocks
            .addService(
                ServerInterceptors.intercept(
                    new PaymentService(), idempotency, new AuthInterceptor()))
            .build()
            .start(); // the last interceptor listed runs first

    // the client: one key per call, gRPC's retries resend it
    RetryPolicy policy = RetryPolicy.ofDefaults();
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget("payments:8443")
            .intercept(IdempotencyClientInterceptor.create())
            .defaultServiceConfig( // the unary methods only, never a stream
                GrpcRetryServiceConfig.forServices(
                    policy, PaymentServiceGrpc.getServiceDescriptor()))
            .enableRetry()
            .maxRetryAttempts(policy.maxAttempts())
            .build();
    PaymentServiceBlockingStub payments =
        PaymentServiceGrpc.newBlockingStub(channel)
            .withOption(
                IdempotencyClientInterceptor.OPERATION_KEY,
                OperationKey.forEvent("charge", orderId));
    // end::interceptors[]
    server.shutdown();
    return payments;
  }
}
