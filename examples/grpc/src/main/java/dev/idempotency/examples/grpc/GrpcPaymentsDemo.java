package dev.idempotency.examples.grpc;

import dev.idempotency.client.Backoff;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.examples.grpc.shop.CreatePaymentRequest;
import dev.idempotency.examples.grpc.shop.PaymentServiceGrpc;
import dev.idempotency.grpc.GrpcRetryServiceConfig;
import dev.idempotency.grpc.IdempotencyClientInterceptor;
import dev.idempotency.testing.Http2ResponseCuttingProxy;
import dev.idempotency.testing.ThreadPools;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * The gRPC demo: clients create payments through a proxy that loses the server's answers after the
 * server sent them, so gRPC's own retries (the service config from {@link GrpcRetryServiceConfig})
 * resend calls whose payment was already charged. Each payment's key is derived from its id ({@link
 * IdempotencyClientInterceptor#OPERATION_KEY}), so every retry carries the same key and the server
 * interceptor answers it from the store. A second pass, with no losses, sends every payment that
 * did not end OK again under the same key, as a reconciliation job would. The report counts the
 * card charges; {@code --compare} runs the same traffic with the server interceptor off.
 */
public final class GrpcPaymentsDemo {
  /** The clients' retry policy: a short one, so the demo ends in seconds. */
  static final RetryPolicy RETRIES =
      RetryPolicy.builder()
          .maxAttempts(4)
          .backoff(Backoff.fullJitter(Duration.ofMillis(20), Duration.ofMillis(200)))
          .deadline(Duration.ofSeconds(10))
          .build();

  private GrpcPaymentsDemo() {}

  public static void main(String[] args) {
    // the library logs through System.Logger (java.util.logging by default): keep the console for
    // the report
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
    GrpcDemoOptions options;
    try {
      options = GrpcDemoOptions.parse(List.of(args));
    } catch (GrpcDemoOptions.UsageException e) {
      String problem = Objects.requireNonNullElse(e.getMessage(), "");
      if (!problem.isEmpty()) {
        System.err.println("grpc demo: " + problem + "\n");
      }
      System.err.print(GrpcDemoOptions.USAGE);
      System.exit(problem.isEmpty() ? 0 : 2);
      return;
    }
    try {
      List<Run> runs = new ArrayList<>();
      runs.add(run(options, true));
      if (options.compare()) {
        runs.add(run(options, false));
      }
      System.out.print(report(options, runs));
    } catch (Exception e) {
      System.err.println("grpc demo: " + e);
      System.exit(1);
    }
  }

  /**
   * What one run did.
   *
   * @param libraryOn whether the server interceptor was on
   * @param endedOk payments whose first pass ended OK
   * @param failedFirst the first pass's other endings, by status code
   * @param resentOk payments the second pass sent again that ended OK
   * @param answers answers the server sent through the proxy, first pass and second
   * @param lost answers the proxy lost
   * @param replays answers the interceptor sent from the store
   * @param charges card charges
   * @param duplicateCharges charges beyond the first of a payment
   * @param seconds how long the run took
   */
  record Run(
      boolean libraryOn,
      int endedOk,
      Map<Status.Code, Integer> failedFirst,
      int resentOk,
      int answers,
      int lost,
      long replays,
      long charges,
      long duplicateCharges,
      double seconds) {}

  /** Runs both passes of the demo's traffic against a fresh server. */
  static Run run(GrpcDemoOptions options, boolean libraryOn) throws Exception {
    long t0 = System.nanoTime();
    String database = (libraryOn ? "on_" : "off_") + Long.toHexString(System.nanoTime());
    System.err.println("starting: library " + (libraryOn ? "on" : "off"));
    try (GrpcPaymentsServer server = GrpcPaymentsServer.start(libraryOn, 0, database);
        Http2ResponseCuttingProxy proxy = Http2ResponseCuttingProxy.start(server.port())) {
      // which answers are lost depends on the seed and the answer's number only
      proxy.cutResponses(
          n ->
              new SplittableRandom(options.seed() ^ (n * 0x9E3779B97F4A7C15L)).nextInt(100)
                  < options.lossPercent());
      Status.Code[] first = sendAll(options, proxy.port(), i -> true);
      proxy.cutResponses(n -> false);
      Status.Code[] second = sendAll(options, proxy.port(), i -> first[i] != Status.Code.OK);
      int endedOk = 0;
      int resentOk = 0;
      Map<Status.Code, Integer> failedFirst = new EnumMap<>(Status.Code.class);
      for (int i = 0; i < first.length; i++) {
        if (first[i] == Status.Code.OK) {
          endedOk++;
        } else {
          failedFirst.merge(first[i], 1, Integer::sum);
          if (second[i] == Status.Code.OK) {
            resentOk++;
          }
        }
      }
      return new Run(
          libraryOn,
          endedOk,
          failedFirst,
          resentOk,
          proxy.responses(),
          proxy.cuts(),
          server.replays(),
          server.cards.charges(),
          server.cards.duplicateCharges(),
          (System.nanoTime() - t0) / 1e9);
    }
  }

  /**
   * Sends payment {@code i} for each {@code i} that {@code which} selects, from the demo's clients
   * (client {@code c} sends the payments {@code i} with {@code i % clients == c}, in order, each on
   * its own channel), and returns how each ended; null for one not sent.
   */
  private static Status.Code[] sendAll(GrpcDemoOptions options, int port, IntPredicate which)
      throws Exception {
    Status.Code[] ends = new Status.Code[options.payments()];
    ExecutorService clients = Executors.newFixedThreadPool(options.clients());
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < options.clients(); c++) {
        int client = c;
        done.add(
            clients.submit(
                () -> {
                  ManagedChannel channel = channel(port);
                  try {
                    PaymentServiceGrpc.PaymentServiceBlockingStub stub =
                        PaymentServiceGrpc.newBlockingStub(channel)
                            .withInterceptors(
                                MetadataUtils.newAttachHeadersInterceptor(
                                    MerchantAuth.credentials("merchant-" + (client % 3 + 1))));
                    for (int i = client; i < ends.length; i += options.clients()) {
                      if (which.test(i)) {
                        ends[i] = create(stub, i);
                      }
                    }
                  } finally {
                    channel.shutdownNow();
                    channel.awaitTermination(10, TimeUnit.SECONDS);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(10L * options.payments() + 60, TimeUnit.SECONDS);
      }
    } finally {
      ThreadPools.shutDown(clients, Duration.ofSeconds(10), "the gRPC demo's clients");
    }
    return ends;
  }

  /** A client's channel: the client interceptor's keys and gRPC's retries by {@link #RETRIES}. */
  private static ManagedChannel channel(int port) {
    return NettyChannelBuilder.forAddress(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
        .usePlaintext()
        .intercept(IdempotencyClientInterceptor.create())
        .defaultServiceConfig(
            GrpcRetryServiceConfig.forServices(RETRIES, PaymentServiceGrpc.getServiceDescriptor()))
        .enableRetry()
        .maxRetryAttempts(RETRIES.maxAttempts())
        .build();
  }

  /** Creates payment {@code i}: one logical call, one key, however many attempts gRPC makes. */
  private static Status.Code create(PaymentServiceGrpc.PaymentServiceBlockingStub stub, int i) {
    String paymentId = "pay-" + i;
    try {
      stub.withOption(
              IdempotencyClientInterceptor.OPERATION_KEY,
              OperationKey.forEvent("create-payment", paymentId))
          .createPayment(
              CreatePaymentRequest.newBuilder()
                  .setPaymentId(paymentId)
                  .setAmountCents(100 + i)
                  .build());
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  static String report(GrpcDemoOptions options, List<Run> runs) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%nThe gRPC payments demo: %d payments from %d clients over Netty on loopback. The proxy%n"
                + "loses %d %% of the answers (seed %d) in the first pass, none in the second.%n"
                + "Store: store-jdbc on embedded H2.%n%n",
            options.payments(),
            options.clients(),
            options.lossPercent(),
            options.seed()));
    row(out, "", runs, r -> r.libraryOn() ? "library on" : "server interceptor off");
    row(out, "payments", runs, r -> String.valueOf(options.payments()));
    row(out, "ended OK in the first pass", runs, r -> String.valueOf(r.endedOk()));
    row(out, "failed in the first pass", runs, r -> failures(r.failedFirst()));
    row(out, "sent again, ended OK", runs, r -> String.valueOf(r.resentOk()));
    row(out, "answers the server sent", runs, r -> String.valueOf(r.answers()));
    row(out, "answers lost in transit", runs, r -> String.valueOf(r.lost()));
    row(out, "answers replayed from the store", runs, r -> String.valueOf(r.replays()));
    row(out, "card charges", runs, r -> String.valueOf(r.charges()));
    row(out, "duplicate charges", runs, r -> String.valueOf(r.duplicateCharges()));
    row(out, "seconds", runs, r -> String.format(Locale.ROOT, "%.1f", r.seconds()));
    out.append(
        String.format(
            Locale.ROOT,
            "%nEffectively once within the key's scope (the merchant) and the replay window (24 h):%n"
                + "a lost answer's retry and the second pass carry the payment's key, and get the%n"
                + "stored answer instead of a second charge.%n"));
    return out.toString();
  }

  private static String failures(Map<Status.Code, Integer> failed) {
    if (failed.isEmpty()) {
      return "0";
    }
    StringBuilder s = new StringBuilder();
    failed.forEach(
        (code, n) -> s.append(s.length() == 0 ? "" : ", ").append(n).append(' ').append(code));
    return s.toString();
  }

  private static void row(
      StringBuilder out, String label, List<Run> runs, Function<Run, String> cell) {
    out.append(String.format(Locale.ROOT, "  %-34s", label));
    for (Run r : runs) {
      out.append(String.format(Locale.ROOT, "%24s", cell.apply(r)));
    }
    out.append(System.lineSeparator());
  }
}
