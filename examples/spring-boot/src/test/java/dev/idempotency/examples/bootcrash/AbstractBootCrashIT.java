package dev.idempotency.examples.bootcrash;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.RecordId;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27's gate for Spring Boot: a {@link LedgerApplication} JVM serving an endpoint in one
 * transaction (the starter's default with the JDBC store) writes a ledger row through {@code
 * JdbcTemplate} and one through JPA, each for its own key, and is killed with {@code kill -9}
 * between the write and the commit; the same keys, sent to a second JVM, commit there. N times
 * ({@code -Didempotency.crash.repetitions}, {@value #DEFAULT_REPETITIONS} by default), each with a
 * fresh victim and fresh keys; afterwards every key has exactly one ledger row, the second
 * worker's, and a completed record: 0 keys with two rows. For comparison, the same kill of a worker
 * whose endpoint is stepped ({@code in-one-transaction=false}) leaves the row committed and the key
 * in flight, which is what this test would see if the one transaction did not hold, and a retry
 * after the lease writes a second row. One subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractBootCrashIT {
  /** Enough to keep each database's class near a minute in CI; the gate's figures used 20. */
  static final int DEFAULT_REPETITIONS = 3;

  private static final List<String> WRITERS = List.of("jdbc", "jpa");

  /** The databases, with H2 in file mode opened by three processes (AUTO_SERVER). */
  enum Database {
    /**
     * H2 in file mode shared by processes: {@code AUTO_SERVER=TRUE} makes the first process that
     * opens the file (the test, which keeps its pool open for the class) its server, and the
     * workers its clients over TCP, so a killed worker's session ends with its socket. {@code
     * WRITE_DELAY=0} writes each commit before {@code commit()} returns.
     */
    H2_FILE,
    POSTGRES,
    MARIADB
  }

  private final ExecutorService clientThreads = Executors.newCachedThreadPool();
  private final HttpClient client =
      HttpClient.newBuilder()
          .executor(clientThreads)
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  /** Where the workers' output (and H2's file) go: the class's temporary directory. */
  private Path tempDir;

  private final List<BootWorker> workers = new ArrayList<>();
  private String url;
  private String user;
  private String password;
  private HikariDataSource pool;
  private String recordsTable;
  private String runId;
  private BootWorker survivor;
  private int survivorPort;

  /** The database this subclass runs against. */
  abstract Database database();

  @BeforeAll
  void createTablesAndStartTheSurvivor(@TempDir Path dir) throws Exception {
    tempDir = dir;
    switch (database()) {
      case H2_FILE -> {
        url =
            "jdbc:h2:file:"
                + tempDir.resolve("boot-crash").toAbsolutePath()
                + ";AUTO_SERVER=TRUE;WRITE_DELAY=0";
        user = "sa";
        password = "";
      }
      case POSTGRES ->
          login(
              "IDEMPOTENCY_TEST_PG_URL",
              "IDEMPOTENCY_TEST_PG_USER",
              "IDEMPOTENCY_TEST_PG_PASSWORD");
      case MARIADB ->
          login(
              "IDEMPOTENCY_TEST_MARIADB_URL",
              "IDEMPOTENCY_TEST_MYSQL_USER",
              "IDEMPOTENCY_TEST_MYSQL_PASSWORD");
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(2);
    config.setPoolName("boot-crash-test");
    pool = new HikariDataSource(config);
    runId = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    // a table per run: the servers are shared with other tests and runs
    recordsTable = "boot_crash_rec_" + runId;
    JdbcKeyStore.builder(pool).tableName(recordsTable).createSchemaIfMissing().build();
    // one ledger for every run, whose rows carry this run's keys
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(LedgerRow.createTable());
    }
    survivor = start("survivor", false, false);
    survivorPort = survivor.awaitPort();
  }

  private void login(String urlVar, String userVar, String passwordVar) {
    List<String> values = TestDatabases.require(urlVar, userVar, passwordVar);
    url = values.get(0);
    user = values.get(1);
    password = values.get(2);
  }

  @AfterAll
  void stopWorkersAndDropTheRun() throws Exception {
    for (BootWorker w : workers) {
      w.destroy();
    }
    clientThreads.shutdownNow();
    if (pool == null) {
      return; // skipped before anything existed
    }
    try (HikariDataSource ds = pool;
        Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "DELETE FROM " + LedgerRow.TABLE + " WHERE record_key LIKE 'boot-crash-" + runId + "-%'");
      s.execute("DROP TABLE IF EXISTS " + recordsTable);
      if (database() == Database.POSTGRES) {
        s.execute("DROP SEQUENCE IF EXISTS " + recordsTable + "_fence_seq");
      }
    }
  }

  /**
   * The gate: killed after its row, before the commit, N times, the row written through {@code
   * JdbcTemplate} for one key and through JPA for another; each retry, on the survivor, runs as a
   * first attempt and commits the key's only row.
   */
  @Test
  @Timeout(value = 20, unit = TimeUnit.MINUTES) // 20 repetitions take ~3 min; each wait has its own
  void killedBetweenTheWriteAndTheCommitLeavesNoKeyWithTwoRows() throws Exception {
    int repetitions = Integer.getInteger("idempotency.crash.repetitions", DEFAULT_REPETITIONS);
    Map<String, Integer> keysWithTwoRows = new LinkedHashMap<>();
    Map<String, Integer> keysWithOneRow = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    long started = System.nanoTime();
    for (int i = 1; i <= repetitions; i++) {
      BootWorker victim = start("victim " + i, true, false);
      Map<String, String> keys = killAfterTheirWrites(victim, "once-" + i);
      for (String writer : WRITERS) {
        String key = keys.get(writer);
        List<String> afterKill = ledger(key);
        HttpResponse<String> retry = post(survivorPort, writer, key).join();
        List<String> rows = ledger(key);
        String record = record(key);
        if (rows.size() > 1) {
          keysWithTwoRows.merge(writer, 1, Integer::sum);
        } else if (rows.size() == 1) {
          keysWithOneRow.merge(writer, 1, Integer::sum);
        }
        String seen =
            String.format(
                "%s %s: after the kill %s; retry %d%s; then %s, record %s",
                writer,
                key,
                afterKill,
                retry.statusCode(),
                retry.headers().firstValue("Idempotent-Replayed").map(r -> " replayed").orElse(""),
                rows,
                record);
        if (!afterKill.isEmpty()
            || retry.statusCode() != 201
            || retry.headers().firstValue("Idempotent-Replayed").isPresent()
            || !rows.equals(List.of(writer + " by survivor"))
            || !record.equals("COMPLETE")) {
          failures.add(seen);
        }
      }
    }
    System.out.printf(
        "BOOT CRASH GATE %s: %d repetitions per writer, keys with two rows %s, with one row %s,"
            + " in %d s%n",
        database(),
        repetitions,
        keysWithTwoRows,
        keysWithOneRow,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    assertThat(failures)
        .as(
            "keys not ending with one row, the survivor's, and a completed record (%s, %d"
                + " repetitions)\n%s",
            database(), repetitions, survivor.transcript())
        .isEmpty();
    assertThat(keysWithTwoRows).as("keys with two rows").isEmpty();
  }

  /**
   * The difference the gate detects: a worker whose endpoint is stepped commits its claim, then its
   * row, each on its own, so the same kill leaves the row committed and the key in flight; the
   * retry gets the in-flight 409 until the claim's lease (10 s here) has passed, and then runs the
   * controller again: two rows for one key.
   */
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES) // one worker start; each wait has its own
  void steppedTheSameKillLeavesTheRowAndTheKeyInFlightAndTheRetryAfterTheLeaseWritesTwice()
      throws Exception {
    BootWorker victim = start("stepped victim", true, true);
    Map<String, String> keys = killAfterTheirWrites(victim, "stepped");
    for (String writer : WRITERS) {
      String key = keys.get(writer);
      assertThat(ledger(key))
          .as("%s: the stepped worker's row survived its kill", writer)
          .containsExactly(writer + " by stepped victim");
      assertThat(record(key)).as("%s: the key is left in flight", writer).isEqualTo("IN_FLIGHT");
      HttpResponse<String> retry = post(survivorPort, writer, key).join();
      assertThat(retry.statusCode()).as("%s: the retry within the lease", writer).isEqualTo(409);
      assertThat(retry.body()).contains("\"code\":\"idempotency_request_in_flight\"");
    }
    for (String writer : WRITERS) {
      String key = keys.get(writer);
      HttpResponse<String> retry = retryPastTheLease(writer, key);
      assertThat(retry.statusCode()).as("%s: the retry after the lease ran", writer).isEqualTo(201);
      assertThat(ledger(key))
          .as("%s: one key, two rows", writer)
          .containsExactly(writer + " by stepped victim", writer + " by survivor");
    }
  }

  /** Retries {@code key} on the survivor every 200 ms while it answers 409, up to 60 s. */
  private HttpResponse<String> retryPastTheLease(String writer, String key) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      HttpResponse<String> retry = post(survivorPort, writer, key).join();
      if (retry.statusCode() != 409 || System.nanoTime() > deadline) {
        return retry;
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }

  /**
   * Sends one key per writer to {@code victim}, waits until both controllers have written, and
   * kills it with {@code kill -9}; asserts that neither client got an answer.
   */
  private Map<String, String> killAfterTheirWrites(BootWorker victim, String round)
      throws Exception {
    int port = victim.awaitPort();
    Map<String, String> keys = new LinkedHashMap<>();
    List<CompletableFuture<HttpResponse<String>>> lost = new ArrayList<>();
    for (String writer : WRITERS) {
      String key = "boot-crash-" + runId + "-" + round + "-" + writer;
      keys.put(writer, key);
      lost.add(post(port, writer, key));
    }
    for (String key : keys.values()) {
      victim.awaitWritten(key);
    }
    victim.killDashNine();
    for (CompletableFuture<HttpResponse<String>> answer : lost) {
      assertThat(answer)
          .as("a killed worker answers nothing\n%s", victim.transcript())
          .failsWithin(10, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class);
    }
    return keys;
  }

  private BootWorker start(String name, boolean holdAfterWrite, boolean stepped) throws Exception {
    List<String> properties = new ArrayList<>();
    // only these properties: not the example app's application.properties, on the same class path
    properties.add("--spring.config.name=boot-crash");
    properties.add("--server.port=0");
    properties.add("--spring.main.banner-mode=off");
    properties.add("--logging.level.root=WARN");
    // the tables are the test's: no migration, no DDL from Hibernate
    properties.add("--spring.flyway.enabled=false");
    properties.add("--spring.jpa.hibernate.ddl-auto=none");
    properties.add("--idempotency.jdbc.table-name=" + recordsTable);
    properties.add("--idempotency.anonymous-scope=" + LedgerApplication.SCOPE);
    // the endpoint as an application configures it; in-one-transaction unset: on the JDBC store it
    // runs in one transaction
    properties.add("--idempotency.endpoints[0].paths=/ledger/**");
    properties.add("--idempotency.endpoints[0].methods=POST");
    properties.add("--crash.hold-after-write=" + holdAfterWrite);
    if (stepped) {
      properties.add("--idempotency.endpoints[0].in-one-transaction=false");
      // the lease the claim is stored with: a retry on another worker takes over after it
      properties.add("--idempotency.lease=10s");
    }
    BootWorker worker =
        BootWorker.start(
            name,
            tempDir,
            Map.of(
                "SPRING_DATASOURCE_URL", url,
                "SPRING_DATASOURCE_USERNAME", user,
                "SPRING_DATASOURCE_PASSWORD", password),
            properties);
    workers.add(worker);
    return worker;
  }

  private CompletableFuture<HttpResponse<String>> post(int port, String writer, String key) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ledger/" + writer))
            .timeout(Duration.ofSeconds(60))
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }

  /** The committed rows of {@code key}, each {@code "<writer> by <worker>"}, sorted. */
  private List<String> ledger(String key) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT writer, worker_pid FROM " + LedgerRow.TABLE + " WHERE record_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(rs.getString(1) + " by " + workerOf(rs.getLong(2)));
        }
      }
    }
    rows.sort(null);
    return rows;
  }

  private String workerOf(long pid) {
    return workers.stream()
        .filter(w -> w.pid() == pid)
        .map(w -> w.name)
        .findFirst()
        .orElse("unknown pid " + pid);
  }

  /** The key's record state, or ABSENT. */
  private String record(String key) {
    return JdbcKeyStore.builder(pool)
        .tableName(recordsTable)
        .build()
        .lookup(RecordId.of(LedgerApplication.SCOPE, key))
        .map(r -> r.state().toString())
        .orElse("ABSENT");
  }
}
