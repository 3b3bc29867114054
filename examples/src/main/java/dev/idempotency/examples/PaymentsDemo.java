package dev.idempotency.examples;

import dev.idempotency.testing.FaultInjectingProxy;
import dev.idempotency.testing.RandomFaults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo: a payments API under a fleet of retrying clients and a network that drops responses
 * after the API processed them, resets connections and answers bursts of 503/429. It ends with a
 * report in which, with the library on, duplicate charges are 0; {@code --compare} runs the same
 * traffic with the library switched off and shows the duplicates it causes. {@code serve} leaves
 * the API running and prints curl commands.
 */
public final class PaymentsDemo {
  /**
   * How slow the API is on a request the injector slows down, and when the injector drops that
   * request's client.
   */
  private static final Duration SLOW = Duration.ofMillis(800);

  private static final Duration SLOW_DROP_AFTER = Duration.ofMillis(150);

  /** The Retry-After of the injector's 503 and 429 bursts, in seconds. */
  private static final long BURST_RETRY_AFTER_SECONDS = 1;

  private PaymentsDemo() {}

  public static void main(String[] args) {
    // the clients log each retry through System.Logger; the report counts them, so keep the console
    // for progress
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
    DemoOptions options;
    try {
      options = DemoOptions.parse(args);
    } catch (DemoOptions.UsageException e) {
      if (!e.getMessage().isEmpty()) {
        System.err.println("demo: " + e.getMessage() + "\n");
      }
      System.err.print(DemoOptions.USAGE);
      System.exit(e.getMessage().isEmpty() ? 0 : 2);
      return;
    }
    try {
      if (options.mode() == DemoOptions.Mode.SERVE) {
        serve(options);
      } else {
        System.out.print(run(options));
      }
    } catch (Exception e) {
      System.err.println("demo: " + e);
      System.exit(1);
    }
  }

  /**
   * Runs the fleet (and, with --compare, the same traffic with the library off) and returns the
   * report.
   */
  static String run(DemoOptions options) throws Exception {
    String store =
        options.store() == DemoOptions.Store.DYNAMODB
            ? "DynamoDB (" + options.dynamoDbEndpoint().orElse("AWS") + ")"
            : options
                .jdbcUrl()
                .map(u -> u.replaceAll("(?<=//)[^@/]*@", ""))
                .orElse("H2 (embedded, in memory)");
    List<DemoReport.Run> runs = new ArrayList<>();
    runs.add(runOnce(options, true, "library on"));
    if (options.compare()) {
      runs.add(
          runOnce(
              options,
              false,
              options.offMode() == DemoOptions.OffMode.FRESH_KEY
                  ? "library off (new key per attempt)"
                  : "library off (no key)"));
    }
    return DemoReport.render(options, store, runs);
  }

  private static DemoReport.Run runOnce(DemoOptions options, boolean libraryOn, String title)
      throws Exception {
    boolean filter = libraryOn || options.offMode() == DemoOptions.OffMode.FRESH_KEY;
    String database = (libraryOn ? "on" : "off") + "_" + Long.toHexString(System.nanoTime());
    System.err.println("starting: " + title);
    try (PaymentsApi api = PaymentsApi.start(options, filter, 0, database);
        FaultInjectingProxy proxy =
            FaultInjectingProxy.start(api.uri().getPort())
                .plan(new RandomFaults(options.faults(), options.seed()))
                .slowRequests(
                    PaymentsApi.DELAY_HEADER, String.valueOf(SLOW.toMillis()), SLOW_DROP_AFTER)
                .retryAfterSeconds(BURST_RETRY_AFTER_SECONDS, BURST_RETRY_AFTER_SECONDS)) {
      long t0 = System.nanoTime();
      RunStats stats = Fleet.run(proxy.uri(""), options, libraryOn, title);
      double seconds = (System.nanoTime() - t0) / 1e9;
      CardNetwork cards = api.cardNetwork;
      return new DemoReport.Run(
          title,
          stats,
          proxy.exchanges().size(),
          proxy.faultCounts(),
          cards.charges(),
          cards.paymentsCharged(),
          cards.duplicateCharges(),
          seconds);
    }
  }

  private static void serve(DemoOptions options) throws Exception {
    PaymentsApi api = PaymentsApi.start(options, true, options.port(), "serve");
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  api.close();
                }));
    String base = api.uri().toString();
    String post =
        "curl -si -X POST "
            + base
            + "/payments -H 'Authorization: Bearer merchant-1'"
            + " -H 'Content-Type: application/json'";
    System.out.printf(
        Locale.ROOT,
        """
        The payments API listens on %s (the idempotency filter in front, store-jdbc on embedded H2).

        1. A payment, then its retry with the same key: the second answer is the stored one, with
           Idempotent-Replayed: true, and the card is charged once.
          %s -H 'Idempotency-Key: order-confirm-4711' -d '{"paymentId":"pay-4711","amountCents":4200}'
          %s -H 'Idempotency-Key: order-confirm-4711' -d '{"paymentId":"pay-4711","amountCents":4200}'

        2. The same key with another payload: 409, problem code idempotency_key_reused, never a replay.
          %s -H 'Idempotency-Key: order-confirm-4711' -d '{"paymentId":"pay-4711","amountCents":9900}'

        3. A slow payment and its retry while it still runs: 409, idempotency_request_in_flight, Retry-After.
          (%s -H 'Idempotency-Key: slow-1' -d '{"paymentId":"pay-slow","amountCents":100,"delayMillis":5000}' &) ; sleep 1
          %s -H 'Idempotency-Key: slow-1' -d '{"paymentId":"pay-slow","amountCents":100,"delayMillis":5000}'

        4. No key on a POST: 400, idempotency_key_missing.
          %s -d '{"paymentId":"pay-1","amountCents":100}'

        Ctrl-C stops it.
        """,
        base,
        post,
        post,
        post,
        post,
        post,
        post);
    Thread.currentThread().join();
  }
}
