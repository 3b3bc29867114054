package dev.idempotency.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command line against the real PostgreSQL and MariaDB: a record claimed with a lease of 300 ms
 * and left to expire is listed, shown, left as it is by {@code release --dry-run} and released by
 * {@code release}.
 */
@Timeout(60)
class AdminCliIT {
  private static final Fingerprint FP = Fingerprint.of("req".getBytes(StandardCharsets.UTF_8));

  @ParameterizedTest
  @ValueSource(strings = {"postgres", "mariadb"})
  void listsShowsAndReleasesAnAbandonedRecord(String database) throws Exception {
    List<String> env =
        database.equals("postgres")
            ? TestDatabases.require(
                "IDEMPOTENCY_TEST_PG_URL",
                "IDEMPOTENCY_TEST_PG_USER",
                "IDEMPOTENCY_TEST_PG_PASSWORD")
            : TestDatabases.require(
                "IDEMPOTENCY_TEST_MARIADB_URL",
                "IDEMPOTENCY_TEST_MYSQL_USER",
                "IDEMPOTENCY_TEST_MYSQL_PASSWORD");
    String url = env.get(0);
    String table = "admin_it_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 4);
    DriverManagerDataSource ds = new DriverManagerDataSource(url, env.get(1), env.get(2));
    JdbcKeyStore store = JdbcKeyStore.builder(ds).tableName(table).createSchemaIfMissing().build();
    try {
      String scope = "tenant \"one\"";
      RecordId stuck = RecordId.of(scope, "stuck-1");
      RecordId live = RecordId.of(scope, "live-1");
      assertThat(
              store.claim(
                  new ClaimRequest(
                      stuck, FP, Instant.now(), Duration.ofMillis(300), Duration.ofHours(24))))
          .isInstanceOf(ClaimOutcome.Claimed.class);
      assertThat(
              store.claim(
                  new ClaimRequest(
                      live, FP, Instant.now(), Duration.ofMinutes(5), Duration.ofHours(24))))
          .isInstanceOf(ClaimOutcome.Claimed.class);
      Thread.sleep(1_000); // the 300 ms lease runs out (a store on the database's clock included)
      assertThat(RecordSelection.ABANDONED.matches(lookup(store, stuck), Instant.now())).isTrue();

      List<String> common = List.of("--jdbc-url", url, "--user", env.get(1), "--table", table);

      Run list = run(common, "list", "--selection", "ABANDONED", "--scope", scope, "--json");
      assertThat(list.code).isZero();
      assertThat(list.out)
          .contains("\"scope\":\"tenant \\\"one\\\"\",\"key\":\"stuck-1\",\"state\":\"IN_FLIGHT\"")
          .doesNotContain("live-1");

      Run table1 = run(common, "list", "--scope", scope);
      assertThat(table1.code).isZero();
      assertThat(table1.out).contains("stuck-1").contains("1 record\n").doesNotContain("live-1");

      Run show = run(common, "show", "--scope", scope, "--key", "stuck-1");
      assertThat(show.code).isZero();
      assertThat(show.out).contains("state").contains("IN_FLIGHT").contains("stuck-1");

      Run missing = run(common, "show", "--scope", scope, "--key", "nobody");
      assertThat(missing.code).isEqualTo(AdminCli.REFUSED);

      FenceToken before = lookup(store, stuck).fence();
      Run dry =
          run(
              common,
              "release",
              "--scope",
              scope,
              "--key",
              "stuck-1",
              "--reason",
              "refunded",
              "--dry-run");
      assertThat(dry.code).isZero();
      assertThat(dry.out).startsWith("dry run: would be RELEASED");
      RecordSnapshot afterDry = lookup(store, stuck);
      assertThat(afterDry.state()).isEqualTo(KeyState.IN_FLIGHT);
      assertThat(afterDry.fence()).isEqualTo(before);

      Run liveDry =
          run(common, "release", "--scope", scope, "--key", "live-1", "--reason", "x", "--dry-run");
      assertThat(liveDry.code).isEqualTo(AdminCli.REFUSED);
      assertThat(liveDry.out).contains("LEASE_LIVE");

      Run liveRelease =
          run(common, "release", "--scope", scope, "--key", "live-1", "--reason", "x", "--json");
      assertThat(liveRelease.code).isEqualTo(AdminCli.REFUSED);
      assertThat(liveRelease.out)
          .contains("\"status\":\"LEASE_LIVE\"")
          .contains("\"dryRun\":false");
      assertThat(lookup(store, live).state()).isEqualTo(KeyState.IN_FLIGHT);

      Run release =
          run(common, "release", "--scope", scope, "--key", "stuck-1", "--reason", "refunded");
      assertThat(release.code).isZero();
      assertThat(release.out).startsWith("RELEASED: released");
      assertThat(store.lookup(stuck)).isEmpty();

      Run again =
          run(common, "release", "--scope", scope, "--key", "stuck-1", "--reason", "refunded");
      assertThat(again.code).isEqualTo(AdminCli.REFUSED);
      assertThat(again.out).startsWith("NOT_FOUND");
    } finally {
      drop(ds, table, database);
    }
  }

  private static RecordSnapshot lookup(JdbcKeyStore store, RecordId id) {
    Optional<RecordSnapshot> seen = store.lookup(id);
    assertThat(seen).isPresent();
    return seen.get();
  }

  private record Run(int code, String out, String err) {}

  /**
   * The command line's entry in this JVM, the password from the environment as a script sets it.
   */
  private static Run run(List<String> common, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(1, common);
    String password =
        common.get(1).startsWith("jdbc:postgresql")
            ? System.getenv("IDEMPOTENCY_TEST_PG_PASSWORD")
            : System.getenv("IDEMPOTENCY_TEST_MYSQL_PASSWORD");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        AdminCli.run(
            all.toArray(String[]::new),
            Map.of("IDEMPOTENCY_ADMIN_JDBC_PASSWORD", password),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static void drop(DriverManagerDataSource ds, String table, String database)
      throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      if (database.equals("postgres")) {
        s.execute("DROP SEQUENCE IF EXISTS " + table + "_fence_seq");
      }
    }
  }
}
