package dev.idempotency.examples;

import dev.idempotency.testing.RandomFaults;
import java.util.Locale;
import java.util.Optional;

/**
 * The demo's command line, parsed and validated: a bad flag ends in {@link UsageException} with a
 * message that names the flag and the usage text, never a stack trace.
 */
record DemoOptions(
    Mode mode,
    int clients,
    int paymentsPerClient,
    RandomFaults.Rates faults,
    Optional<String> jdbcUrl,
    String jdbcUser,
    String jdbcPassword,
    Store store,
    Optional<String> dynamoDbEndpoint,
    boolean compare,
    OffMode offMode,
    long seed,
    int port) {

  enum Mode {
    RUN,
    SERVE
  }

  /** Which key store the payments API uses. */
  enum Store {
    /** JdbcKeyStore: embedded H2, or the database of --jdbc-url. */
    JDBC,
    /** DynamoDbKeyStore: AWS's DynamoDB, or the endpoint of --dynamodb-endpoint (dynalite). */
    DYNAMODB
  }

  /** How the "library off" run sends its retries. */
  enum OffMode {
    /** A new Idempotency-Key on every attempt: the anti-pattern that defeats the server half. */
    FRESH_KEY,
    /** No key and no idempotency filter on the server: plain retries. */
    NO_KEY
  }

  static final String USAGE =
      """
      usage: demo [run|serve] [options]

        run                  (default) a fleet of clients pays through a fault-injecting proxy; prints a report
        serve                start the payments API and print curl commands that show a replay, a mismatch and
                             an in-flight conflict; stop it with Ctrl-C

      options:
        --clients N          concurrent clients (1-500, default 20)
        --payments N         payments per client (1-10000, default 10)
        --drop-rate R        share of requests whose response is dropped after the API processed them (default 0.15)
        --slow-rate R        share of requests the API is slow to process and whose connection drops meanwhile, so
                             that the retry finds the request in flight (default 0.05)
        --reset-rate R       share of requests answered with a TCP reset, before or after processing (default 0.05)
        --burst-rate R       share of requests that start a burst of 503/429 with Retry-After (default 0.01)
        --burst-length N     requests in one burst (default 3)
        --compare            also run the same traffic with the library switched off, and report side by side
        --off-mode MODE      how the library is switched off: fresh-key (a new key per attempt, default) or
                             no-key (no key, no filter)
        --jdbc-url URL       the store's database (default: embedded H2 in memory), e.g.
                             jdbc:postgresql://127.0.0.1:55432/idem
        --jdbc-user U        database user (default idem for a URL, sa for H2)
        --jdbc-password P    database password (default idem for a URL, empty for H2)
        --store S            the key store: jdbc (default: embedded H2, or --jdbc-url) or dynamodb
        --dynamodb-endpoint URL
                             with --store dynamodb, the endpoint (e.g. dynalite: http://127.0.0.1:58000, with
                             dummy credentials); without it, AWS's DynamoDB in AWS_REGION (default us-east-1)
                             with the default credentials. The table is created and deleted by the demo.
        --seed N             seed of the fault injector (default 42)
        --port N             port of the API in serve mode (default 8080)
        --help               this text
      """;

  /** The command line is wrong; the message says which flag and why. */
  static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  static DemoOptions parse(String... args) throws UsageException {
    Mode mode = Mode.RUN;
    int clients = 20;
    int payments = 10;
    double drop = 0.15;
    double slow = 0.05;
    double reset = 0.05;
    double burst = 0.01;
    int burstLength = 3;
    String url = null;
    String user = null;
    String password = null;
    Store store = Store.JDBC;
    String endpoint = null;
    boolean compare = false;
    OffMode offMode = OffMode.FRESH_KEY;
    long seed = 42;
    int port = 8080;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "run" -> mode = Mode.RUN;
        case "serve" -> mode = Mode.SERVE;
        case "--help", "-h" -> throw new UsageException("");
        case "--compare" -> compare = true;
        case "--clients" -> clients = intValue(arg, value(args, ++i, arg), 1, 500);
        case "--payments" -> payments = intValue(arg, value(args, ++i, arg), 1, 10_000);
        case "--drop-rate" -> drop = rate(arg, value(args, ++i, arg));
        case "--slow-rate" -> slow = rate(arg, value(args, ++i, arg));
        case "--reset-rate" -> reset = rate(arg, value(args, ++i, arg));
        case "--burst-rate" -> burst = rate(arg, value(args, ++i, arg));
        case "--burst-length" -> burstLength = intValue(arg, value(args, ++i, arg), 1, 100);
        case "--jdbc-url" -> url = value(args, ++i, arg);
        case "--jdbc-user" -> user = value(args, ++i, arg);
        case "--jdbc-password" -> password = value(args, ++i, arg);
        case "--store" -> {
          String v = value(args, ++i, arg);
          store =
              switch (v.toLowerCase(Locale.ROOT)) {
                case "jdbc", "h2" -> Store.JDBC;
                case "dynamodb" -> Store.DYNAMODB;
                default ->
                    throw new UsageException(
                        "--store must be jdbc or dynamodb, but was '" + v + "'");
              };
        }
        case "--dynamodb-endpoint" -> endpoint = value(args, ++i, arg);
        case "--seed" -> seed = longValue(arg, value(args, ++i, arg));
        case "--port" -> port = intValue(arg, value(args, ++i, arg), 1, 65_535);
        case "--off-mode" -> {
          String v = value(args, ++i, arg);
          offMode =
              switch (v.toLowerCase(Locale.ROOT)) {
                case "fresh-key" -> OffMode.FRESH_KEY;
                case "no-key" -> OffMode.NO_KEY;
                default ->
                    throw new UsageException(
                        "--off-mode must be fresh-key or no-key, but was '" + v + "'");
              };
        }
        default -> throw new UsageException("unknown argument '" + arg + "'");
      }
    }
    if (store == Store.DYNAMODB && url != null) {
      throw new UsageException("--jdbc-url is for --store jdbc, not --store dynamodb");
    }
    if (endpoint != null
        && (store != Store.DYNAMODB
            || !(endpoint.startsWith("http://") || endpoint.startsWith("https://")))) {
      throw new UsageException(
          "--dynamodb-endpoint needs --store dynamodb and an http(s) URL, but was '"
              + endpoint
              + "'");
    }
    if (url != null && !url.startsWith("jdbc:")) {
      throw new UsageException("--jdbc-url must be a JDBC URL (jdbc:…), but was '" + url + "'");
    }
    RandomFaults.Rates rates;
    try {
      rates = new RandomFaults.Rates(drop, slow, reset, burst, burstLength);
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "--drop-rate, --slow-rate, --reset-rate and --burst-rate: " + e.getMessage());
    }
    return new DemoOptions(
        mode,
        clients,
        payments,
        rates,
        Optional.ofNullable(url),
        user != null ? user : url != null ? "idem" : "sa",
        password != null ? password : url != null ? "idem" : "",
        store,
        Optional.ofNullable(endpoint),
        compare,
        offMode,
        seed,
        port);
  }

  private static String value(String[] args, int i, String flag) throws UsageException {
    if (i >= args.length || args[i].startsWith("--")) {
      throw new UsageException(flag + " needs a value");
    }
    return args[i];
  }

  private static int intValue(String flag, String v, int min, int max) throws UsageException {
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new UsageException(
            flag + " must be between " + min + " and " + max + ", but was " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " must be a whole number, but was '" + v + "'");
    }
  }

  private static long longValue(String flag, String v) throws UsageException {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " must be a whole number, but was '" + v + "'");
    }
  }

  private static double rate(String flag, String v) throws UsageException {
    try {
      double r = Double.parseDouble(v);
      if (!(r >= 0 && r <= 1)) {
        throw new UsageException(flag + " must be between 0 and 1, but was " + v);
      }
      return r;
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " must be a number between 0 and 1, but was '" + v + "'");
    }
  }
}
