package dev.idempotency.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.core.RecordView;
import dev.idempotency.spi.PageCursor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AdminCliTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return runWith(Map.of(), args);
  }

  private int runWith(Map<String, String> env, String... args) {
    return AdminCli.run(
        args,
        env,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void parsesACommandAndItsOptions() throws Exception {
    AdminCli.Args args =
        AdminCli.parse(
            new String[] {
              "release",
              "--jdbc-url",
              "jdbc:h2:mem:x",
              "--scope",
              "s",
              "--key",
              "k",
              "--reason",
              "refunded",
              "--dry-run",
              "--json"
            });
    assertThat(args.command()).isEqualTo("release");
    assertThat(args.get("--scope")).contains("s");
    assertThat(args.get("--reason")).contains("refunded");
    assertThat(args.flag("--dry-run")).isTrue();
    assertThat(args.flag("--json")).isTrue();
  }

  @Test
  void refusesUnknownRepeatedMisplacedAndValuelessOptionsNamingThem() {
    assertThatThrownBy(() -> AdminCli.parse(new String[] {"list", "--colour", "red"}))
        .hasMessageContaining("--colour");
    assertThatThrownBy(() -> AdminCli.parse(new String[] {"list", "--limit", "1", "--limit", "2"}))
        .hasMessageContaining("--limit given twice");
    assertThatThrownBy(() -> AdminCli.parse(new String[] {"show", "--reason", "x"}))
        .hasMessageContaining("show takes no option --reason");
    assertThatThrownBy(() -> AdminCli.parse(new String[] {"show", "--scope"}))
        .hasMessageContaining("--scope needs a value");
    assertThatThrownBy(() -> AdminCli.parse(new String[] {"purge"}))
        .hasMessageContaining("unknown command purge");
  }

  @Test
  void badUsageExitsTwoWithAMessageNamingTheOption() {
    assertThat(run("release", "--jdbc-url", "jdbc:h2:mem:x", "--scope", "s", "--key", "k"))
        .isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("release needs --reason");

    err.reset();
    assertThat(run("list", "--jdbc-url", "jdbc:h2:mem:x", "--limit", "0")).isEqualTo(2);
    assertThat(err()).contains("--limit must be 1 to 10000");

    err.reset();
    assertThat(run("list", "--selection", "STUCK", "--jdbc-url", "jdbc:h2:mem:x")).isEqualTo(2);
    assertThat(err()).contains("--selection must be one of");

    err.reset();
    assertThat(run("list")).isEqualTo(2);
    assertThat(err()).contains("--jdbc-url");
    assertThat(out.size()).isZero();
  }

  @Test
  void extendWithoutExactlyOneValidLaterInstantExitsTwoNamingTheOption() {
    String[] record = {"--jdbc-url", "jdbc:h2:mem:x", "--scope", "s", "--key", "k"};
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put("--reason why", "exactly one of --keep-for and --keep-until");
    cases.put("--reason why --keep-for P7D --keep-until 2099-01-01T00:00:00Z", "exactly one of");
    cases.put("--reason why --keep-for 7d", "--keep-for must be an ISO-8601 duration");
    cases.put("--reason why --keep-for PT0S", "--keep-for must be longer than zero");
    cases.put("--reason why --keep-for -P1D", "--keep-for must be longer than zero");
    cases.put("--reason why --keep-for PT9223372036854775807S", "--keep-for is past the last");
    cases.put("--reason why --keep-until tomorrow", "--keep-until must be an ISO-8601 instant");
    cases.put("--reason why --keep-until 2020-01-01T00:00:00Z", "--keep-until must be after now");
    cases.put("--keep-for P7D", "extend needs --reason");
    cases.put("--keep-for P7D --reason " + "x".repeat(201), "--reason must be one line of text");
    cases.forEach(
        (options, message) -> {
          out.reset();
          err.reset();
          List<String> args = new ArrayList<>(List.of("extend"));
          args.addAll(List.of(record));
          args.addAll(List.of(options.split(" ")));
          assertThat(run(args.toArray(String[]::new))).as(options).isEqualTo(AdminCli.USAGE);
          assertThat(err()).as(options).contains(message);
          assertThat(out.size()).as(options).isZero();
        });
  }

  @Test
  void redriveIsRefusedWithCodeOneAndSaysWhy() {
    assertThat(run("redrive", "--jdbc-url", "jdbc:h2:mem:x", "--scope", "s", "--key", "k"))
        .isEqualTo(AdminCli.REFUSED);
    assertThat(err()).contains("Completer.Resumer").contains("Actuator endpoint");
  }

  @Test
  void noStoreOrTwoStoresExitTwoNamingTheOptions() {
    assertThat(run("list")).isEqualTo(AdminCli.USAGE);
    assertThat(err())
        .contains("no store given")
        .contains("--jdbc-url, --redis-uri, --dynamodb-table");

    err.reset();
    assertThat(run("list", "--jdbc-url", "jdbc:h2:mem:x", "--redis-uri", "redis://h"))
        .isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("the options name two stores");

    err.reset();
    assertThat(run("list", "--redis-uri", "redis://h", "--dynamodb-endpoint", "http://h"))
        .isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("the options name two stores");

    err.reset();
    assertThat(
            runWith(
                Map.of(
                    "IDEMPOTENCY_ADMIN_JDBC_URL", "jdbc:h2:mem:x",
                    "IDEMPOTENCY_ADMIN_DYNAMODB_TABLE", "t1"),
                "list"))
        .isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("the environment name two stores");
    assertThat(out.size()).isZero();
  }

  @Test
  void anOptionSelectsItsStoreOverTheEnvironment() {
    // the JDBC URL in the environment does not count once an option names Redis: the Redis
    // options are the ones checked
    int code =
        runWith(
            Map.of("IDEMPOTENCY_ADMIN_JDBC_URL", "jdbc:h2:mem:x"),
            "list",
            "--redis-uri",
            "redis://127.0.0.1:1",
            "--index-shards",
            "0");
    assertThat(code).isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("--index-shards must be 1 to 16384");
  }

  @Test
  void anOptionOfAnotherStoreThanTheSelectedOneExitsTwo() {
    assertThat(run("list", "--redis-uri", "redis://h", "--user", "u")).isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("--user is not an option of a Redis store");

    err.reset();
    assertThat(run("list", "--jdbc-url", "jdbc:h2:mem:x", "--key-prefix", "p:"))
        .isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("--key-prefix is not an option of a JDBC store");

    err.reset();
    assertThat(run("list", "--dynamodb-table", "t1", "--table", "t2")).isEqualTo(AdminCli.USAGE);
    assertThat(err()).contains("--table is not an option of a DynamoDB store");
  }

  @Test
  void aDynamoDbStoreNeedsItsTable() {
    assertThat(run("list", "--dynamodb-endpoint", "http://127.0.0.1:1", "--region", "us-east-1"))
        .isEqualTo(AdminCli.USAGE);
    assertThat(err())
        .contains("--dynamodb-table (or $IDEMPOTENCY_ADMIN_DYNAMODB_TABLE) is required");
  }

  @Test
  void badStoreValuesExitTwoNamingTheOption() {
    assertThat(run("list", "--redis-uri", "redis://h", "--timeout", "0")).isEqualTo(2);
    assertThat(err()).contains("--timeout must be 1 to 60 seconds");

    err.reset();
    assertThat(run("list", "--redis-uri", "redis://h", "--index-shards", "many")).isEqualTo(2);
    assertThat(err()).contains("--index-shards must be 1 to 16384");

    err.reset();
    assertThat(run("list", "--redis-uri", "ftp://h")).isEqualTo(2);
    assertThat(err()).contains("--redis-uri");

    err.reset();
    assertThat(run("list", "--dynamodb-table", "t1", "--dynamodb-endpoint", "ftp://h"))
        .isEqualTo(2);
    assertThat(err()).contains("--dynamodb-endpoint");

    err.reset();
    assertThat(
            run(
                "list",
                "--dynamodb-table",
                "no/slash",
                "--dynamodb-endpoint",
                "http://127.0.0.1:1",
                "--region",
                "us-east-1"))
        .isEqualTo(2);
    assertThat(err()).contains("--dynamodb-table: tableName must be 3 to 255 characters");
  }

  @Test
  void aStoreThatCannotBeReachedExitsThree() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    int code =
        run(
            "list",
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:" + port + "/none?connectTimeout=5",
            "--user",
            "u",
            "--password",
            "p");
    assertThat(code).isEqualTo(AdminCli.UNAVAILABLE);
    assertThat(err()).contains("the store is unavailable");
  }

  @Test
  void helpPrintsTheExitCodes() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("0 done, 1 refused")
        .contains("2 bad usage, 3 store unavailable");
  }

  @Test
  void jsonEscapesAHostileScopeAndKey() {
    String scope = "t\"en\\ant</script>\u2028\u00e9";
    String key = "k\"\\{}";
    RecordView view =
        new RecordView(
            RecordId.of(scope, key),
            KeyState.IN_FLIGHT,
            Fingerprint.of(new byte[] {1, 2}),
            FenceToken.of(7),
            Optional.of(Instant.parse("2026-01-01T00:00:00Z")),
            Optional.empty(),
            Optional.empty(),
            OptionalInt.empty(),
            OptionalLong.empty(),
            Optional.of("line\nbreak\u0001"));
    String json = AdminOutput.listJson(List.of(view), Optional.of(new PageCursor("r.abc.k")));
    assertThat(json)
        .isEqualTo(
            "{\"records\":[{\"scope\":\"t\\\"en\\\\ant</script>\\u2028\u00e9\","
                + "\"key\":\"k\\\"\\\\{}\",\"state\":\"IN_FLIGHT\",\"fence\":7,"
                + "\"leaseExpiresAt\":\"2026-01-01T00:00:00Z\",\"recoveryPoint\":null,"
                + "\"completedAt\":null,\"status\":null,\"responseBytes\":null,"
                + "\"notStoredReason\":\"line\\nbreak\\u0001\",\"fingerprint\":\"0102\"}],"
                + "\"next\":\"r.abc.k\"}");
  }

  @Test
  void tableShowsOneLinePerRecordEvenWithControlCharacters() {
    RecordView view =
        new RecordView(
            RecordId.of("scope", "key-1"),
            KeyState.COMPLETE,
            Fingerprint.of(new byte[] {1}),
            FenceToken.of(3),
            Optional.empty(),
            Optional.empty(),
            Optional.of(Instant.parse("2026-01-01T00:00:00Z")),
            OptionalInt.of(201),
            OptionalLong.of(12),
            Optional.empty());
    String table = AdminOutput.showTable(view);
    assertThat(table).contains("state            COMPLETE").contains("status           201");
    String list = AdminOutput.listTable(List.of(view), Optional.empty());
    assertThat(list.lines()).hasSize(3);
    assertThat(list).contains("scope  key-1  COMPLETE  3").endsWith("1 record\n");
  }
}
