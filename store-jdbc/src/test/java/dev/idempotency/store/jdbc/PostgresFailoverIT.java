package dev.idempotency.store.jdbc;

import static dev.idempotency.store.jdbc.ChildProcesses.asUser;
import static dev.idempotency.store.jdbc.ChildProcesses.run;
import static dev.idempotency.store.jdbc.ChildProcesses.start;
import static dev.idempotency.store.jdbc.ChildProcesses.tail;
import static dev.idempotency.store.jdbc.PostgresNodes.PG_BIN;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testing.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
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
  private static final String PG_HINT = "install PostgreSQL 15 (scripts/services.sh does).";

  /** Longer than the outage: a caller that ran the work keeps its lease while it retries. */
  private static final Duration LEASE = Duration.ofSeconds(10);

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
        ChildProcesses.deleteTree(d);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sync", "async"})
  @Timeout(60)
  void keysAcrossTheFailoverToAPromotedStandby(String mode) throws Exception {
    ChildProcesses.requireExecutable(PG_BIN.resolve("initdb"), PG_HINT);
    ChildProcesses.requireExecutable(PG_BIN.resolve("pg_basebackup"), PG_HINT);
    boolean sync = "sync".equals(mode);

    // the primary
    Path dir = newDir();
    Path primaryData = dir.resolve("primary");
    Path standbyData = dir.resolve("standby");
    run(
        dir.resolve("initdb.log"),
        asUser(
            "postgres",
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
        asUser(
            "postgres",
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
      PostgresNodes.exec(p1, "ALTER SYSTEM SET synchronous_standby_names = '*'");
      PostgresNodes.exec(p1, "SELECT pg_reload_conf()");
    }
    PostgresNodes.awaitStreaming(p1, sync ? "sync" : "async", 20);

    try (HikariDataSource pool = FailoverRun.pool(PostgresNodes.primaryUrl(p1, p2))) {
      JdbcKeyStore store =
          JdbcKeyStore.builder(pool).tableName("idem_failover").createSchemaIfMissing().build();
      FailoverRun.Result result =
          FailoverRun.run(
              store,
              mode,
              LEASE,
              () -> {
                // the postmaster and every backend at once, as a crashed host: a postmaster killed
                // alone leaves its backends serving their connections until they notice
                ProcessHandle.of(primary.pid())
                    .ifPresent(h -> h.descendants().forEach(backends::add));
                long postmaster = PostgresNodes.postmasterPid(primaryData);
                killedShmid = PostgresNodes.sysvShmid(primaryData);
                List<Long> pids = new ArrayList<>(List.of(postmaster));
                backends.forEach(b -> pids.add(b.pid()));
                ChildProcesses.signal("9", pids);
                PostgresNodes.awaitGone(p1);
                // then promote the standby at once
                run(
                    dir.resolve("promote.log"),
                    asUser(
                        "postgres",
                        PG_BIN.resolve("pg_ctl").toString(),
                        "promote",
                        "-w",
                        "-t",
                        "30",
                        "-D",
                        standbyData.toString()));
              },
              Duration.ofSeconds(40));

      assertThat(PostgresNodes.inRecovery(p2)).as("the standby was promoted").isFalse();
      System.out.println(result.line("postgres " + mode));
      if (sync) {
        assertThat(result.twice())
            .as("keys whose work ran twice, synchronous replication")
            .isZero();
      }
    }
  }

  private Process startServer(Path dir, Path data, int port, String name) throws IOException {
    Process p =
        start(
            dir.resolve(name + ".log"),
            asUser(
                "postgres",
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

  private static void awaitAccepting(Process p, int port, Path log) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < end) {
      if (!p.isAlive()) {
        throw new IllegalStateException("postgres exited; its log:\n" + tail(log));
      }
      try {
        PostgresNodes.exec(port, "SELECT 1");
        return;
      } catch (SQLException e) {
        // polling: the server offers nothing to wait on but its port
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    throw new IllegalStateException("postgres accepted nothing in 30 s; its log:\n" + tail(log));
  }

  private Path newDir() throws IOException {
    Path dir = ChildProcesses.newDir("pg-failover-", "postgres");
    dirs.add(dir);
    return dir;
  }
}
