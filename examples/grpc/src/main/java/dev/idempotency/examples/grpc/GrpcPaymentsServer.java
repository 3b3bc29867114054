package dev.idempotency.examples.grpc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.grpc.GrpcScopeResolver;
import dev.idempotency.grpc.IdempotencyServerInterceptor;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The payments service on a Netty server on loopback: the merchant's authentication first, then
 * (unless switched off, to show what it prevents) the idempotency interceptor, backed by the JDBC
 * store on embedded H2. The server's calls run on a pool of their own: the interceptor blocks on
 * the store, which must not happen on Netty's event loop.
 */
final class GrpcPaymentsServer implements AutoCloseable {
  final CardCharges cards = new CardCharges();
  private final LongAdder replays = new LongAdder();
  private final HikariDataSource dataSource;
  private final IdempotencyEngine engine;
  private final ExecutorService calls = Executors.newFixedThreadPool(16);
  private final Server server;

  private GrpcPaymentsServer(boolean idempotency, int port, String database) throws IOException {
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl("jdbc:h2:mem:" + database);
    pool.setMaximumPoolSize(16);
    pool.setPoolName("grpc-payments-" + database);
    dataSource = new HikariDataSource(pool);
    engine =
        IdempotencyEngine.builder(JdbcKeyStore.builder(dataSource).createSchemaIfMissing().build())
            .config(
                IdempotencyConfig.builder()
                    .listener(
                        event -> {
                          if (event instanceof IdempotencyEvent.Replayed) {
                            replays.increment();
                          }
                        })
                    .build())
            .build();
    PaymentsService service = new PaymentsService(cards);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
            .executor(calls);
    // the last interceptor listed runs first: authentication, then idempotency
    builder.addService(
        idempotency
            ? ServerInterceptors.intercept(
                service,
                IdempotencyServerInterceptor.builder(
                        engine, GrpcScopeResolver.fromContext(MerchantAuth.MERCHANT))
                    .build(),
                new MerchantAuth())
            : ServerInterceptors.intercept(service, new MerchantAuth()));
    try {
      server = builder.build().start();
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Starts the service on {@code port} of the loopback address (0: any free port).
   *
   * @param idempotency whether the idempotency interceptor stands in front of the service
   * @param database the name of this run's in-memory H2 database
   */
  static GrpcPaymentsServer start(boolean idempotency, int port, String database)
      throws IOException {
    return new GrpcPaymentsServer(idempotency, port, database);
  }

  int port() {
    return server.getPort();
  }

  /** Answers sent from the store instead of the service. */
  long replays() {
    return replays.sum();
  }

  @Override
  public void close() {
    boolean ended = true;
    try {
      if (server != null) {
        server.shutdownNow();
        ended = server.awaitTermination(10, TimeUnit.SECONDS);
      }
      calls.shutdownNow();
      ended &= calls.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      engine.close();
      dataSource.close();
    }
    if (!ended) {
      throw new IllegalStateException("the gRPC payments server did not stop within 10 s");
    }
  }
}
