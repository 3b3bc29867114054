package dev.idempotency.admin;

import dev.idempotency.admin.AdminCli.Args;
import dev.idempotency.admin.AdminCli.UsageException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The stores the command line opens, each with the options that select it, the environment
 * variables that select it when no option does, and the options only it takes. Exactly one store is
 * selected: by the options if any select one, else by the environment, so that an operator with a
 * JDBC URL exported can still name a Redis URI on the command line.
 */
// the lists and sets are List.of and Set.of, immutable; the checker knows only Guava's types
@SuppressWarnings("ImmutableEnumChecker")
enum StoreKind {
  JDBC(
      "a JDBC store",
      List.of("--jdbc-url"),
      List.of("IDEMPOTENCY_ADMIN_JDBC_URL"),
      Set.of("--jdbc-url", "--user", "--password", "--table")),
  REDIS(
      "a Redis store",
      List.of("--redis-uri"),
      List.of("IDEMPOTENCY_ADMIN_REDIS_URI"),
      Set.of("--redis-uri", "--key-prefix", "--index-shards", "--timeout")),
  DYNAMODB(
      "a DynamoDB store",
      List.of("--dynamodb-table", "--dynamodb-endpoint"),
      List.of("IDEMPOTENCY_ADMIN_DYNAMODB_TABLE", "IDEMPOTENCY_ADMIN_DYNAMODB_ENDPOINT"),
      Set.of("--dynamodb-table", "--dynamodb-endpoint", "--region", "--timeout"));

  static final int DEFAULT_TIMEOUT_SECONDS = 5;
  static final int MAX_TIMEOUT_SECONDS = 60;

  private final String description;
  private final List<String> selecting;
  private final List<String> selectingEnv;
  private final Set<String> options;

  StoreKind(String description, List<String> selecting, List<String> env, Set<String> options) {
    this.description = description;
    this.selecting = selecting;
    this.selectingEnv = env;
    this.options = options;
  }

  /** Every option of every store, for the parser. */
  static Set<String> allOptions() {
    Set<String> all = new HashSet<>();
    for (StoreKind kind : values()) {
      all.addAll(kind.options);
    }
    return all;
  }

  /**
   * The one store the options, or with none the environment, select; refuses none, two, and an
   * option of another store than the one selected.
   */
  static StoreKind select(Args args, Map<String, String> env) throws UsageException {
    List<StoreKind> byOptions = new ArrayList<>();
    List<StoreKind> byEnv = new ArrayList<>();
    for (StoreKind kind : values()) {
      if (kind.selecting.stream().anyMatch(args::flag)) {
        byOptions.add(kind);
      }
      if (kind.selectingEnv.stream().anyMatch(v -> !env.getOrDefault(v, "").isEmpty())) {
        byEnv.add(kind);
      }
    }
    List<StoreKind> chosen = byOptions.isEmpty() ? byEnv : byOptions;
    if (chosen.size() != 1) {
      String which = byOptions.isEmpty() ? "the environment" : "the options";
      throw new UsageException(
          (chosen.isEmpty() ? "no store given" : which + " name two stores")
              + ": give exactly one of --jdbc-url, --redis-uri, --dynamodb-table"
              + " (or $IDEMPOTENCY_ADMIN_JDBC_URL, $IDEMPOTENCY_ADMIN_REDIS_URI,"
              + " $IDEMPOTENCY_ADMIN_DYNAMODB_TABLE)");
    }
    StoreKind kind = chosen.get(0);
    for (String name : args.options().keySet()) {
      if (allOptions().contains(name) && !kind.options.contains(name)) {
        throw new UsageException(name + " is not an option of " + kind.description);
      }
    }
    return kind;
  }

  /**
   * How long connecting and each call may take, from {@code --timeout} (seconds); default {@value
   * #DEFAULT_TIMEOUT_SECONDS} s. Past it the store is unavailable (exit 3).
   */
  static Duration timeout(Args args) throws UsageException {
    String given = args.get("--timeout").orElse(Integer.toString(DEFAULT_TIMEOUT_SECONDS));
    int seconds;
    try {
      seconds = Integer.parseInt(given);
    } catch (NumberFormatException e) {
      seconds = 0;
    }
    if (seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) {
      throw new UsageException("--timeout must be 1 to " + MAX_TIMEOUT_SECONDS + " seconds");
    }
    return Duration.ofSeconds(seconds);
  }

  /** Opens the store from the options and the environment. */
  OpenStore open(Args args, Map<String, String> env) throws UsageException {
    return switch (this) {
      case JDBC -> JdbcStoreOpener.open(args, env);
      case REDIS -> RedisStoreOpener.open(args, env);
      case DYNAMODB -> DynamoDbStoreOpener.open(args, env);
    };
  }
}
