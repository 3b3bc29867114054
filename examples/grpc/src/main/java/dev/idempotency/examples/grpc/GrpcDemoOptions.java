package dev.idempotency.examples.grpc;

import java.util.List;

/**
 * The gRPC demo's command line.
 *
 * @param payments how many payments the clients create
 * @param clients how many clients, each with its own channel, create them
 * @param lossPercent the share of the server's answers the proxy loses in the first pass
 * @param seed the seed of the proxy's losses
 * @param compare whether to run the same traffic again without the server interceptor
 */
record GrpcDemoOptions(int payments, int clients, int lossPercent, long seed, boolean compare) {
  static final String USAGE =
      """
      usage: bash scripts/demo.sh grpc [--payments N] [--clients N] [--loss PERCENT] [--seed S] [--compare]

        --payments N      payments to create (default 200, 1 to 100000)
        --clients N       clients, each with its own channel and retry throttle (default 8, 1 to 64)
        --loss PERCENT    answers the proxy loses after the server sent them, first pass (default 30, 0 to 90)
        --seed S          the seed of those losses (default 7)
        --compare         run the same traffic again with the server interceptor off
      """;

  static GrpcDemoOptions defaults() {
    return new GrpcDemoOptions(200, 8, 30, 7, false);
  }

  /** A bad command line; an empty message asks for the usage only. */
  static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  static GrpcDemoOptions parse(List<String> args) throws UsageException {
    GrpcDemoOptions o = defaults();
    for (int i = 0; i < args.size(); i++) {
      String flag = args.get(i);
      switch (flag) {
        case "--help", "-h" -> throw new UsageException("");
        case "--compare" ->
            o = new GrpcDemoOptions(o.payments, o.clients, o.lossPercent, o.seed, true);
        case "--payments", "--clients", "--loss", "--seed" -> {
          if (i + 1 == args.size()) {
            throw new UsageException(flag + " needs a value");
          }
          String value = args.get(++i);
          long n;
          try {
            n = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new UsageException(flag + " takes a whole number, not '" + value + "'");
          }
          o =
              switch (flag) {
                case "--payments" ->
                    new GrpcDemoOptions(
                        (int) within(flag, n, 1, 100_000),
                        o.clients,
                        o.lossPercent,
                        o.seed,
                        o.compare);
                case "--clients" ->
                    new GrpcDemoOptions(
                        o.payments, (int) within(flag, n, 1, 64), o.lossPercent, o.seed, o.compare);
                case "--loss" ->
                    new GrpcDemoOptions(
                        o.payments, o.clients, (int) within(flag, n, 0, 90), o.seed, o.compare);
                default -> new GrpcDemoOptions(o.payments, o.clients, o.lossPercent, n, o.compare);
              };
        }
        default -> throw new UsageException("unknown argument '" + flag + "'");
      }
    }
    return o;
  }

  private static long within(String flag, long n, long min, long max) throws UsageException {
    if (n < min || n > max) {
      throw new UsageException(flag + " must be from " + min + " to " + max + ", not " + n);
    }
    return n;
  }
}
