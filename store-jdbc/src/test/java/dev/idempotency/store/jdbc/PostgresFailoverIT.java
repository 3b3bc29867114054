package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.testing.LoopbackPorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A PostgreSQL primary with a streaming standby, the primary killed with {@code kill -9} while
 * callers claim and complete keys, the standby promoted: how many keys ran their work twice. Each
 * key has several concurrent callers, each a client that retries with the same key until it gets
 * the stored result; a caller that won a claim and ran the work retries its {@code complete} with
 * its fence until the store takes it or says the lease is lost. The store reaches the servers
 * through one pool on a multi-host URL ({@code targetServerType=primary}), as an application does.
 *
 * <p>Synchronous replication ({@code synchronous_standby_names='*'}, {@code synchronous_commit=on})
 * loses no acknowledged claim: no key runs twice. Asynchronous replication may lose the last
 * acknowledged commits; the test prints how many keys ran twice and asserts only that every key
 * ends complete on the new primary. A final pass over every key (a client retrying later) runs any
 * key whose record the failover lost.
 *
 * <p>The servers are the test's own (initdb, {@code pg_basebackup -R}, fsync off), on free loopback
 * ports, run as {@code postgres} when the test runs as root. A missing binary fails the test under
 * {@code CI=true} and skips it otherwise.
 */
class PostgresFailoverIT {
  private static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");
  private static final int KEYS = 200;
  private static final int CALLERS_PER_KEY = 2;
  private static final int THREADS = 16;
  private static final Duration WORK = Duration.ofMillis(15);

  /** Longer than the outage: a caller that ran the work keeps its lease while it retries. */
  private static final Duration LEASE = Duration.ofSeconds(10);

  private static final Duration WINDOW = Duration.ofHours(1);
  private static final Fingerprint FP = Fingerprint.of("req".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse RESPONSE =
      StoredResponse.of(200, "ok".getBytes(StandardCharsets.UTF_8));

  private final List<Path> dirs = new ArrayList<>();
  private final List<Process> servers = new ArrayList<>();
  private final List<ProcessHandle> backends = new ArrayList<>();
  private String killedShmid;

  @AfterEach
  void stopServersAndDeleteDirs() throws Exception {
    try {
      for (Process p : servers) {
        if (p.isAlive()) {
          // immediate shutdown; it removes the shared memory, which kill -9 leaves
          new ProcessBuilder("kill", "-QUIT", Long.toString(p.pid())).start().waitFor();
          if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          }
        }
      }
      // the killed primary's backends end on their own when they see their postmaster gone
      backends.forEach(ProcessHandle::destroyForcibly);
      for (ProcessHandle b : backends) {
        b.onExit().get(10, TimeUnit.SECONDS);
      }
      if (killedShmid != null) {
        // the small System V segment a postmaster killed with -9 leaves behind
        new ProcessBuilder("ipcrm", "-m", killedShmid).start().waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      for (Path d : dirs) {
        deleteTree(d);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sync", "async"})
  @Timeout(60)
  void keysAcrossTheFailoverToAPromotedStandby(String mode) throws Exception {
    requireExecutable(PG_BIN.resolve("initdb"));
    requireExecutable(PG_BIN.resolve("pg_basebackup"));
    boolean sync = "sync".equals(mode);

    // the primary
    Path dir = newDir();
    Path primaryData = dir.resolve("primary");
    Path standbyData = dir.resolve("standby");
    run(
        dir.resolve("initdb.log"),
        asPostgres(
            PG_BIN.resolve("initdb").toString(),
            "-D",
            primaryData.toString(),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync"));
    int p1 = LoopbackPorts.closed();
    Process primary = startServer(dir, primaryData, p1, "primary");
    awaitAccepting(primary, p1, dir.resolve("primary.log"));

    // the standby, streaming from it
    run(
        dir.resolve("basebackup.log"),
        asPostgres(
            PG_BIN.resolve("pg_basebackup").toString(),
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(p1),
            "-U",
            "postgres",
            "-D",
            standbyData.toString(),
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
            "--no-sync"));
    int p2 = LoopbackPorts.closed();
    Process standby = startServer(dir, standbyData, p2, "standby");
    awaitAccepting(standby, p2, dir.resolve("standby.log"));
    if (sync) {
      // set after the base backup: the promoted standby must not wait for a standby of its own
      exec(p1, "ALTER SYSTEM SET synchronous_standby_names = '*'");
      exec(p1, "SELECT pg_reload_conf()");
    }
    awaitStreaming(p1, sync ? "sync" : "async");

    String url =
        "jdbc:postgresql://127.0.0.1:"
            + p1
            + ",127.0.0.1:"
            + p2
            + "/postgres?targetServerType=primary&hostRecheckSeconds=1"
            + "&connectTimeout=2&socketTimeout=5&loginTimeout=3";
    try (HikariDataSource pool = pool(url)) {
      JdbcKeyStore store =
          JdbcKeyStore.builder(pool).tableName("idem_failover").createSchemaIfMissing().build();

      Map<RecordId, AtomicInteger> workRuns = new ConcurrentHashMap<>();
      Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
      List<RecordId> ids = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        RecordId id = RecordId.of("acct", mode + "-" + i);
        ids.add(id);
        workRuns.put(id, new AtomicInteger());
      }
      AtomicInteger done = new AtomicInteger();
      AtomicLong killedAt = new AtomicLong();
      AtomicLong lastErrorAt = new AtomicLong();
      Caller caller = new Caller(store, workRuns, outcomes, done, killedAt, lastErrorAt);

      ExecutorService threads = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<?>> calls = new ArrayList<>();
        for (RecordId id : ids) {
          for (int c = 0; c < CALLERS_PER_KEY; c++) {
            calls.add(threads.submit(() -> caller.call(id)));
          }
        }
        // kill the primary a third of the way through, then promote the standby at once
        long waitEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (done.get() < KEYS * CALLERS_PER_KEY / 3 && System.nanoTime() < waitEnd) {
          TimeUnit.MILLISECONDS.sleep(5);
        }
        assertThat(done.get()).as("calls done before the kill").isLessThan(KEYS * CALLERS_PER_KEY);
        ProcessHandle.of(primary.pid()).ifPresent(h -> h.descendants().forEach(backends::add));
        long postmaster = postmasterPid(primaryData);
        killedShmid = sysvShmid(primaryData);
        killedAt.set(System.nanoTime());
        // the postmaster and every backend at once, as a crashed host: a postmaster killed alone
        // leaves its backends serving their connections until they notice
        List<String> kill = new ArrayList<>(List.of("kill", "-9", Long.toString(postmaster)));
        backends.forEach(b -> kill.add(Long.toString(b.pid())));
        new ProcessBuilder(kill).start().waitFor();
        run(
            dir.resolve("promote.log"),
            asPostgres(
                PG_BIN.resolve("pg_ctl").toString(),
                "promote",
                "-w",
                "-t",
                "30",
                "-D",
                standbyData.toString()));
        for (Future<?> f : calls) {
          f.get(40, TimeUnit.SECONDS);
        }
        // a client that retries every key later: runs any key whose record the failover lost
        List<Future<?>> later = new ArrayList<>();
        for (RecordId id : ids) {
          later.add(threads.submit(() -> caller.call(id)));
        }
        for (Future<?> f : later) {
          f.get(40, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }

      try (Connection c = DriverManager.getConnection(pgUrl(p2), "postgres", "");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
        rs.next();
        assertThat(rs.getBoolean(1)).as("the standby was promoted").isFalse();
      }
      for (RecordId id : ids) {
        assertThat(store.lookup(id).map(RecordSnapshot::state))
            .as("the state of %s on the new primary", id)
            .contains(KeyState.COMPLETE);
      }
      long twice = workRuns.values().stream().filter(n -> n.get() > 1).count();
      assertThat(workRuns.values()).allSatisfy(n -> assertThat(n.get()).isPositive());
      // from the kill to the last call that failed: callers met errors that long
      double unavailable = Math.max(0, lastErrorAt.get() - killedAt.get()) / 1e9;
      System.out.printf(
          "FAILOVER postgres %s: %d keys, %d run twice, unavailable %.1f s; outcomes %s%n",
          mode, KEYS, twice, unavailable, new TreeMap<>(outcomes));
      if (sync) {
        assertThat(twice).as("keys whose work ran twice, synchronous replication").isZero();
      }
    }
  }

  /** A client calling with one key until it has the stored result. */
  private record Caller(
      JdbcKeyStore store,
      Map<RecordId, AtomicInteger> workRuns,
      Map<String, AtomicInteger> outcomes,
      AtomicInteger done,
      AtomicLong killedAt,
      AtomicLong lastErrorAt) {

    void call(RecordId id) {
      try {
        callUninterruptibly(id);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void callUninterruptibly(RecordId id) throws InterruptedException {
      boolean failedOnce = false;
      while (true) {
        ClaimOutcome outcome;
        try {
          outcome = store.claim(new ClaimRequest(id, FP, Instant.now(), LEASE, WINDOW));
        } catch (RuntimeException e) { // the store unavailable: the client retries, same key
          failedOnce = true;
          failed();
          TimeUnit.MILLISECONDS.sleep(50);
          continue;
        }
        if (outcome instanceof ClaimOutcome.Completed) {
          count(failedOnce ? "replayed after an error" : "replayed");
          return;
        }
        if (outcome instanceof ClaimOutcome.InFlight) {
          TimeUnit.MILLISECONDS.sleep(20);
          continue;
        }
        if (!(outcome instanceof ClaimOutcome.Claimed claimed)) {
          fail(id + ": " + outcome);
          return;
        }
        workRuns.get(id).incrementAndGet(); // the side effect
        TimeUnit.NANOSECONDS.sleep(WORK.toNanos());
        while (true) {
          try {
            store.complete(id, claimed.fence(), RESPONSE, Instant.now());
            count(failedOnce ? "ran the work, after an error" : "ran the work");
            return;
          } catch (LeaseLostException e) {
            count("lease lost after the work");
            failedOnce = true;
            break; // claim again: the client retries its key
          } catch (RuntimeException e) {
            failedOnce = true;
            failed();
            TimeUnit.MILLISECONDS.sleep(50);
          }
        }
      }
    }

    private void failed() {
      lastErrorAt.accumulateAndGet(System.nanoTime(), Math::max);
    }

    private void count(String outcome) {
      outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
      done.incrementAndGet();
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setPassword("");
    config.setMaximumPoolSize(THREADS);
    config.setConnectionTimeout(3000);
    config.setValidationTimeout(1000);
    config.setPoolName("test-failover");
    return new HikariDataSource(config);
  }

  private Process startServer(Path dir, Path data, int port, String name) throws IOException {
    Process p =
        start(
            dir.resolve(name + ".log"),
            asPostgres(
                PG_BIN.resolve("postgres").toString(),
                "-D",
                data.toString(),
                "-p",
                Integer.toString(port),
                "-k",
                dir.toString(),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "wal_level=replica",
                "-c",
                "max_wal_senders=5",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=on",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=60",
                "-c",
                "shared_buffers=16MB",
                // segments in the data directory, deleted with it: kill -9 leaves them behind
                "-c",
                "dynamic_shared_memory_type=mmap"));
    servers.add(p);
    return p;
  }

  private static String pgUrl(int port) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=2&socketTimeout=10";
  }

  private static void exec(int port, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(pgUrl(port), "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static void awaitAccepting(Process p, int port, Path log) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < end) {
      if (!p.isAlive()) {
        throw new IllegalStateException("postgres exited; its log:\n" + tail(log));
      }
      try {
        exec(port, "SELECT 1");
        return;
      } catch (SQLException e) {
        // polling: the server offers nothing to wait on but its port
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    throw new IllegalStateException("postgres accepted nothing in 30 s; its log:\n" + tail(log));
  }

  private static void awaitStreaming(int primaryPort, String syncState) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < end) {
      try (Connection c = DriverManager.getConnection(pgUrl(primaryPort), "postgres", "");
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT count(*) FROM pg_stat_replication"
                      + " WHERE state = 'streaming' AND sync_state = '"
                      + syncState
                      + "'")) {
        rs.next();
        if (rs.getInt(1) == 1) {
          return;
        }
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new IllegalStateException("no " + syncState + " standby streaming within 20 s");
  }

  private static long postmasterPid(Path data) throws IOException {
    return Long.parseLong(
        Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.UTF_8).get(0).trim());
  }

  /** The id of the server's System V segment: line 7 of postmaster.pid, "key id". */
  private static String sysvShmid(Path data) throws IOException {
    String[] keyAndId =
        Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.UTF_8)
            .get(6)
            .trim()
            .split("\\s+");
    return keyAndId[keyAndId.length - 1];
  }

  private Path newDir() throws IOException {
    Path shm = Path.of("/dev/shm");
    Path base =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
    Path dir = Files.createTempDirectory(base, "pg-failover-");
    dirs.add(dir);
    if (isRoot()) {
      UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
      Files.setOwner(dir, users.lookupPrincipalByName("postgres"));
    }
    return dir;
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static List<String> asPostgres(String... command) {
    List<String> all = new ArrayList<>();
    if (isRoot()) {
      // setpriv execs the command (no fork): the process started is the server itself
      all.addAll(
          List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", "--"));
    }
    all.addAll(List.of(command));
    return all;
  }

  private static void run(Path log, List<String> command) throws Exception {
    Process p = start(log, command);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not finish in 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed (" + p.exitValue() + "):\n" + tail(log));
    }
  }

  private static Process start(Path log, List<String> command) throws IOException {
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .start();
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static void requireExecutable(Path binary) {
    if (Files.isExecutable(binary)) {
      return;
    }
    String message = binary + " is missing: install PostgreSQL 15 (scripts/services.sh does).";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(message);
    }
    Assumptions.abort(message);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
