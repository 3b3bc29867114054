package dev.idempotency.admin;

import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.KeyStoreAdmin;
import dev.idempotency.core.RecordView;
import dev.idempotency.spi.PageCursor;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.StoreCapability;
import java.io.PrintStream;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The command line over {@link KeyStoreAdmin} for a JDBC, Redis or DynamoDB store ({@link
 * StoreKind}): {@code list}, {@code show}, {@code release} and {@code extend} (each with {@code
 * --dry-run}); {@code redrive} is refused, as it needs the application's resumer. Run it with
 * {@code scripts/admin.sh --help}.
 *
 * <p>Exit codes: {@value #DONE} done; {@value #REFUSED} the action was refused (not found,
 * complete, live lease, changed meanwhile) or the command cannot run here ({@code redrive});
 * {@value #USAGE} bad usage; {@value #UNAVAILABLE} the store is unavailable.
 */
public final class AdminCli {
  /** The command did what was asked (a dry run: the action would be done). */
  public static final int DONE = 0;

  /** The action was refused, or would be (a dry run); nothing changed. */
  public static final int REFUSED = 1;

  /** The arguments are wrong; the message names the option. */
  public static final int USAGE = 2;

  /** The store could not be reached or used. */
  public static final int UNAVAILABLE = 3;

  static final String HELP =
      """
      usage: admin.sh COMMAND STORE [--json] ...
        list    [--selection ABANDONED] [--scope S] [--limit N] [--after CURSOR]
        show    --scope S --key K
        release --scope S --key K --reason TEXT [--dry-run]
        extend  --scope S --key K (--keep-for DURATION | --keep-until INSTANT) --reason TEXT
                [--dry-run]   keep the record past its retention
        redrive --scope S --key K     (refused: redrive from the application)
      STORE, exactly one of:
        --jdbc-url URL [--user U] [--password P] [--table T]
        --redis-uri URI [--key-prefix P] [--index-shards N] [--timeout SECONDS]
        --dynamodb-table T [--dynamodb-endpoint URL] [--region R] [--timeout SECONDS]
      --selection: ABANDONED (default), ABANDONED_WITH_RECOVERY_POINT,
        ABANDONED_WITHOUT_RECOVERY_POINT, LIVE, COMPLETE; --limit 1 to 10000 (default 50)
      --keep-for: ISO-8601, e.g. P7D or PT36H; --keep-until: e.g. 2027-01-04T09:00:00Z
      --key-prefix (default idem:) and --index-shards (default 1) must be the application's;
      --timeout (default 5) bounds connecting and each call to Redis or DynamoDB
      defaults: $IDEMPOTENCY_ADMIN_JDBC_URL, _JDBC_USER, _JDBC_PASSWORD, $IDEMPOTENCY_ADMIN_REDIS_URI,
        $IDEMPOTENCY_ADMIN_DYNAMODB_TABLE, _DYNAMODB_ENDPOINT, $AWS_REGION; DynamoDB credentials:
        $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY, else the AWS SDK's default chain
      exit: 0 done, 1 refused (not found, complete, live lease, changed; redrive; extend
        on a store that cannot),
        2 bad usage, 3 store unavailable
      """;

  private static final Set<String> FLAGS = Set.of("--json", "--dry-run", "--help");
  private static final Set<String> VALUED =
      union(
          StoreKind.allOptions(),
          Set.of(
              "--selection",
              "--scope",
              "--key",
              "--limit",
              "--after",
              "--reason",
              "--keep-for",
              "--keep-until"));
  private static final Map<String, Set<String>> ALLOWED =
      Map.of(
          "list", Set.of("--selection", "--scope", "--limit", "--after"),
          "show", Set.of("--scope", "--key"),
          "release", Set.of("--scope", "--key", "--reason", "--dry-run"),
          "extend",
              Set.of("--scope", "--key", "--reason", "--keep-for", "--keep-until", "--dry-run"),
          "redrive", Set.of("--scope", "--key", "--dry-run"));
  private static final Set<String> COMMON =
      union(StoreKind.allOptions(), Set.of("--json", "--help"));

  private AdminCli() {}

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new HashSet<>(a);
    all.addAll(b);
    return Set.copyOf(all);
  }

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(run(args, System.getenv(), System.out, System.err));
  }

  /** A bad argument: the message names the option. */
  static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /** The parsed arguments. */
  record Args(String command, Map<String, String> options) {
    boolean flag(String name) {
      return options.containsKey(name);
    }

    Optional<String> get(String name) {
      return Optional.ofNullable(options.get(name));
    }

    String required(String name) throws UsageException {
      return get(name).orElseThrow(() -> new UsageException(command + " needs " + name));
    }

    /**
     * The option, else the environment variable {@code variable}.
     *
     * @throws UsageException naming both, if neither is given
     */
    String requiredOrEnv(String name, Map<String, String> env, String variable)
        throws UsageException {
      return orEnv(name, env, variable)
          .orElseThrow(() -> new UsageException(name + " (or $" + variable + ") is required"));
    }

    /** The option, else the environment variable {@code variable} if set and not empty. */
    Optional<String> orEnv(String name, Map<String, String> env, String variable) {
      return get(name).or(() -> Optional.ofNullable(env.get(variable)).filter(s -> !s.isEmpty()));
    }
  }

  /**
   * Parses {@code args}: the command first, then its options, each once.
   *
   * @throws UsageException naming the unknown, repeated, misplaced or valueless option
   */
  static Args parse(String[] args) throws UsageException {
    if (args.length == 0 || args[0].startsWith("-")) {
      if (args.length > 0 && args[0].equals("--help")) {
        return new Args("help", Map.of());
      }
      throw new UsageException(
          "the first argument must be a command: list, show, release, extend, redrive");
    }
    String command = args[0];
    if (!ALLOWED.containsKey(command)) {
      throw new UsageException(
          "unknown command " + command + ": list, show, release, extend or redrive");
    }
    Map<String, String> options = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      String name = args[i];
      boolean flag = FLAGS.contains(name);
      if (!flag && !VALUED.contains(name)) {
        throw new UsageException("unknown option " + name);
      }
      if (!COMMON.contains(name) && !ALLOWED.get(command).contains(name)) {
        throw new UsageException(command + " takes no option " + name);
      }
      if (options.containsKey(name)) {
        throw new UsageException("option " + name + " given twice");
      }
      if (flag) {
        options.put(name, "");
      } else {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
          throw new UsageException("option " + name + " needs a value");
        }
        options.put(name, args[++i]);
      }
    }
    return new Args(command, options);
  }

  /**
   * Runs the command line with {@code env} for the defaults, writing to {@code out} and {@code
   * err}; returns the exit code instead of exiting.
   */
  public static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
    Args args;
    try {
      args = parse(argv);
    } catch (UsageException e) {
      err.println("admin: " + e.getMessage() + " (--help lists every option)");
      return USAGE;
    }
    if (args.command().equals("help") || args.flag("--help")) {
      out.print(HELP);
      return DONE;
    }
    try {
      return execute(args, env, out, err);
    } catch (UsageException e) {
      err.println("admin: " + e.getMessage() + " (--help lists every option)");
      return USAGE;
    } catch (KeyStoreException | IllegalStateException e) {
      // a connection refused or timed out, a missing table or a schema check that failed, a
      // Redis server that may evict the records
      err.println("admin: the store is unavailable: " + e.getMessage());
      return UNAVAILABLE;
    }
  }

  private static int execute(Args args, Map<String, String> env, PrintStream out, PrintStream err)
      throws UsageException {
    if (args.command().equals("redrive")) {
      // the resumer is the application's code (it knows how to resume each operation): a command
      // line cannot have it, and redriving without it would be a release in disguise
      err.println(
          "admin: redrive needs the application's Completer.Resumer, which a command line"
              + " cannot have: redrive in the application, through its Actuator endpoint"
              + " (POST /actuator/idempotency/SCOPE/KEY {\"action\":\"redrive\"}, with"
              + " idempotency.admin-endpoint.writes-enabled=true) or KeyStoreAdmin.redrive; or"
              + " release the record here so that the client's retry runs it anew");
      return REFUSED;
    }
    Optional<RecordId> id = recordId(args);
    @Nullable RecordQuery query = args.command().equals("list") ? listQuery(args) : null;
    boolean acts = args.command().equals("release") || args.command().equals("extend");
    @Nullable String reason = acts ? args.required("--reason") : null;
    if (reason != null
        && (reason.isBlank()
            || reason.indexOf('\n') >= 0
            || reason.length() > KeyStoreAdmin.MAX_REASON_LENGTH)) {
      throw new UsageException(
          "--reason must be one line of text, 1 to " + KeyStoreAdmin.MAX_REASON_LENGTH + " long");
    }
    @Nullable Instant keepUntil = args.command().equals("extend") ? keepUntil(args) : null;
    StoreKind kind = StoreKind.select(args, env);
    try (OpenStore store = kind.open(args, env);
        IdempotencyEngine engine = IdempotencyEngine.builder(store.keyStore()).build()) {
      KeyStoreAdmin admin = KeyStoreAdmin.builder(engine).build();
      // each store the command line opens declares it; the guard keeps a store that would not
      // from ending in KeyStoreAdmin's exception
      if (keepUntil != null
          && !store.keyStore().capabilities().contains(StoreCapability.EXTEND_RETENTION)) {
        err.println(
            "admin: this store cannot keep a record past its retention (it does not declare"
                + " StoreCapability.EXTEND_RETENTION); nothing changed");
        return REFUSED;
      }
      return act(args, admin, id, query, reason, keepUntil, out, err);
    }
  }

  /**
   * The instant {@code extend} keeps the record until: {@code --keep-for} from now, or {@code
   * --keep-until}; exactly one of them, and after now.
   */
  private static Instant keepUntil(Args args) throws UsageException {
    Optional<String> keepFor = args.get("--keep-for");
    Optional<String> until = args.get("--keep-until");
    if (keepFor.isPresent() == until.isPresent()) {
      throw new UsageException("extend needs exactly one of --keep-for and --keep-until");
    }
    Instant now = Instant.now();
    if (keepFor.isPresent()) {
      Duration d;
      try {
        d = Duration.parse(keepFor.get());
      } catch (DateTimeParseException e) {
        throw new UsageException(
            "--keep-for must be an ISO-8601 duration such as P7D or PT36H: " + keepFor.get());
      }
      if (d.isNegative() || d.isZero()) {
        throw new UsageException("--keep-for must be longer than zero: " + keepFor.get());
      }
      try {
        return now.plus(d);
      } catch (DateTimeException | ArithmeticException e) {
        throw new UsageException("--keep-for is past the last instant Java can hold: " + d);
      }
    }
    Instant at;
    try {
      at = Instant.parse(until.get());
    } catch (DateTimeParseException e) {
      throw new UsageException(
          "--keep-until must be an ISO-8601 instant such as 2027-01-04T09:00:00Z: " + until.get());
    }
    if (!at.isAfter(now)) {
      throw new UsageException("--keep-until must be after now (" + now + "): " + until.get());
    }
    return at;
  }

  private static int act(
      Args args,
      KeyStoreAdmin admin,
      Optional<RecordId> id,
      @Nullable RecordQuery query,
      @Nullable String reason,
      @Nullable Instant keepUntil,
      PrintStream out,
      PrintStream err) {
    boolean json = args.flag("--json");
    switch (args.command()) {
      case "list" -> {
        RecordQuery asked = Objects.requireNonNull(query, "query");
        RecordQuery q = admin.query(asked.selection(), asked.limit());
        if (asked.scope().isPresent()) {
          q = q.inScope(asked.scope().get());
        }
        if (asked.after().isPresent()) {
          q = q.after(asked.after().get());
        }
        RecordPage page = admin.list(q);
        List<RecordView> views = page.records().stream().map(RecordView::of).toList();
        out.print(
            json
                ? AdminOutput.listJson(views, page.next()) + "\n"
                : AdminOutput.listTable(views, page.next()));
        return DONE;
      }
      case "show" -> {
        Optional<RecordView> view = admin.show(id.orElseThrow());
        if (view.isEmpty()) {
          err.println("admin: no record " + id.get());
          return REFUSED;
        }
        out.print(
            json ? AdminOutput.showJson(view.get()) + "\n" : AdminOutput.showTable(view.get()));
        return DONE;
      }
      default -> {
        boolean dryRun = args.flag("--dry-run");
        RecordId record = id.orElseThrow();
        String why = Objects.requireNonNull(reason, "reason");
        KeyStoreAdmin.Result result;
        if (keepUntil != null) {
          result =
              dryRun
                  ? DryRuns.extend(admin, record, keepUntil)
                  : admin.extend(record, keepUntil, why);
        } else {
          result = dryRun ? DryRuns.release(admin, record) : admin.release(record, why);
        }
        out.print(
            json
                ? AdminOutput.resultJson(result, dryRun) + "\n"
                : AdminOutput.resultTable(result, dryRun));
        return result.done() ? DONE : REFUSED;
      }
    }
  }

  private static Optional<RecordId> recordId(Args args) throws UsageException {
    if (args.command().equals("list")) {
      return Optional.empty();
    }
    String scope = args.required("--scope");
    String key = args.required("--key");
    try {
      return Optional.of(RecordId.of(scope, key));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--scope/--key: " + e.getMessage());
    }
  }

  private static RecordQuery listQuery(Args args) throws UsageException {
    RecordSelection selection;
    try {
      selection = RecordSelection.valueOf(args.get("--selection").orElse("ABANDONED"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--selection must be one of " + List.of(RecordSelection.values()));
    }
    int limit;
    try {
      limit = Integer.parseInt(args.get("--limit").orElse("50"));
    } catch (NumberFormatException e) {
      throw new UsageException("--limit must be a number, 1 to " + RecordQuery.MAX_LIMIT);
    }
    if (limit < 1 || limit > RecordQuery.MAX_LIMIT) {
      throw new UsageException("--limit must be 1 to " + RecordQuery.MAX_LIMIT);
    }
    RecordQuery q = RecordQuery.of(selection, Instant.EPOCH, limit);
    try {
      if (args.get("--scope").isPresent()) {
        q = q.inScope(Scope.of(args.get("--scope").get()));
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException("--scope: " + e.getMessage());
    }
    try {
      if (args.get("--after").isPresent()) {
        q = q.after(new PageCursor(args.get("--after").get()));
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException("--after: " + e.getMessage());
    }
    return q;
  }
}
