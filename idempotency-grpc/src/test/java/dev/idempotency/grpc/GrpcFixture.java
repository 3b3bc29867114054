package dev.idempotency.grpc;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.grpc.test.PaymentServiceGrpc;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * One payment service behind the idempotency interceptor on a real Netty server, a channel to it,
 * and what the engine reported; closed with bounded waits.
 */
final class GrpcFixture implements AutoCloseable {
  final KeyStore store;
  final IdempotencyEngine engine;
  final TestPayments payments = new TestPayments();
  final IdempotencyServerInterceptor interceptor;
  final GrpcServers.Running server;
  final ManagedChannel channel;
  final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

  GrpcFixture(
      KeyStore store,
      int threads,
      UnaryOperator<IdempotencyConfig.Builder> engineConfig,
      UnaryOperator<IdempotencyServerInterceptor.Builder> config)
      throws IOException {
    this.store = store;
    this.engine =
        IdempotencyEngine.builder(store)
            .config(engineConfig.apply(IdempotencyConfig.builder().listener(events::add)).build())
            .build();
    this.interceptor =
        config.apply(IdempotencyServerInterceptor.builder(engine, GrpcServers.scopes())).build();
    this.server = GrpcServers.start(threads, interceptor, payments);
    this.channel = GrpcServers.channel(server.port(), b -> b);
  }

  static GrpcFixture start() throws IOException {
    return new GrpcFixture(new InMemoryKeyStore(), 8, e -> e, c -> c);
  }

  static GrpcFixture start(UnaryOperator<IdempotencyServerInterceptor.Builder> config)
      throws IOException {
    return new GrpcFixture(new InMemoryKeyStore(), 8, e -> e, config);
  }

  /** An in-memory store whose every completion fails with a {@link KeyStoreException}. */
  static KeyStore refusingCompletions() {
    return new DelegatingStore(new InMemoryKeyStore()) {
      @Override
      public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
        throw new KeyStoreException("the store refused the completion");
      }
    };
  }

  /** A blocking stub that sends {@code headers}. */
  PaymentServiceGrpc.PaymentServiceBlockingStub stub(Metadata headers) {
    return PaymentServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  long eventsOf(Class<? extends IdempotencyEvent> type) {
    return events.stream().filter(type::isInstance).count();
  }

  @Override
  public void close() throws Exception {
    try {
      GrpcServers.close(channel);
      server.close();
      payments.close();
    } finally {
      engine.close();
    }
  }
}
