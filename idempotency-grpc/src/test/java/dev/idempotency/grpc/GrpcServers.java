package dev.idempotency.grpc;

import io.grpc.BindableService;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Real Netty servers and channels on loopback for the tests, each closed with a bounded wait: a
 * server with the test authentication ({@code x-caller} metadata into {@link #CALLER}), the
 * idempotency interceptor, and behind it an interceptor that adds the metadata the storing rules
 * choose from.
 */
final class GrpcServers {
  /** The caller's identity, as an application's authentication interceptor puts it. */
  static final Context.Key<String> CALLER = Context.key("test.caller");

  static final Metadata.Key<String> CALLER_HEADER =
      Metadata.Key.of("x-caller", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> REGION_TRAILER =
      Metadata.Key.of("x-charge-region", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> SERVED_BY_HEADER =
      Metadata.Key.of("x-served-by", Metadata.ASCII_STRING_MARSHALLER);

  private GrpcServers() {}

  /** The scope resolver of every test server. */
  static GrpcScopeResolver scopes() {
    return GrpcScopeResolver.fromContext(CALLER);
  }

  /** A running server and the pool its calls run on. */
  static final class Running implements AutoCloseable {
    final Server server;
    private final @Nullable ExecutorService pool;

    Running(Server server, @Nullable ExecutorService pool) {
      this.server = server;
      this.pool = pool;
    }

    int port() {
      return server.getPort();
    }

    @Override
    public void close() throws InterruptedException {
      server.shutdownNow();
      boolean ended = server.awaitTermination(10, TimeUnit.SECONDS);
      if (pool != null) {
        pool.shutdownNow();
        ended &= pool.awaitTermination(10, TimeUnit.SECONDS);
      }
      if (!ended) {
        throw new IllegalStateException("the gRPC server did not end within 10 s");
      }
    }
  }

  /**
   * Starts a Netty server on a loopback port with {@code threads} call threads (0: directExecutor).
   */
  static Running start(
      int threads, IdempotencyServerInterceptor idempotency, BindableService... services)
      throws IOException {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    ExecutorService pool = null;
    if (threads == 0) {
      builder.directExecutor();
    } else {
      pool = Executors.newFixedThreadPool(threads);
      builder.executor(pool);
    }
    for (BindableService service : services) {
      // the last interceptor runs first: authentication, then idempotency, then the metadata adder
      builder.addService(
          ServerInterceptors.intercept(service, new MetadataAdder(), idempotency, new Auth()));
    }
    return new Running(builder.build().start(), pool);
  }

  /** A plaintext channel to a loopback port. */
  static ManagedChannel channel(int port, UnaryOperator<NettyChannelBuilder> configure) {
    return configure
        .apply(
            NettyChannelBuilder.forAddress(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .usePlaintext())
        .build();
  }

  static void close(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow();
    if (!channel.awaitTermination(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the channel did not end within 10 s");
    }
  }

  /** Metadata carrying the caller. */
  static Metadata caller(String caller) {
    Metadata m = new Metadata();
    m.put(CALLER_HEADER, caller);
    return m;
  }

  /** Metadata with the caller and a key. */
  static Metadata callerAndKey(String caller, String key) {
    Metadata m = caller(caller);
    m.put(GrpcIdempotencyMetadata.KEY_HEADER, key);
    return m;
  }

  /** The application's authentication: the caller from {@code x-caller}, none without it. */
  static final class Auth implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      String caller = headers.get(CALLER_HEADER);
      if (caller == null) {
        return next.startCall(call, headers);
      }
      return Contexts.interceptCall(
          Context.current().withValue(CALLER, caller), call, headers, next);
    }
  }

  /** Adds a header and a trailer to every answer, as a handler's own interceptors would. */
  static final class MetadataAdder implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendHeaders(Metadata responseHeaders) {
              responseHeaders.put(SERVED_BY_HEADER, "node-1");
              super.sendHeaders(responseHeaders);
            }

            @Override
            public void close(Status status, Metadata trailers) {
              trailers.put(REGION_TRAILER, "eu-1");
              super.close(status, trailers);
            }
          },
          headers);
    }
  }
}
