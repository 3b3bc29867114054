package dev.idempotency.store.jdbc;

import static dev.idempotency.store.jdbc.ChildProcesses.asUser;
import static dev.idempotency.store.jdbc.ChildProcesses.start;
import static dev.idempotency.store.jdbc.ChildProcesses.tail;
import static dev.idempotency.store.jdbc.PostgresNodes.PG_BIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testing.LoopbackPorts;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two PostgreSQL 15 nodes under Patroni with one etcd member, the leader's node killed with {@code
 * kill -9} while callers claim and complete keys, Patroni electing the replica on its own: how many
 * keys ran their work twice, and how long callers met errors, failure detection included (the
 * leader key must expire first: at least the {@value #TTL} s ttl). The run is {@link
 * FailoverRun}'s, as in {@link PostgresFailoverIT}, through one pool on a multi-host URL with
 * {@code targetServerType=primary}.
 *
 * <p>The fault that fails over is a crashed host: the leader's Patroni, its postmaster and every
 * backend killed at once. Killing the postmaster and backends alone is no failover under Patroni:
 * the Patroni still holding the leader key restarts PostgreSQL in place ({@code
 * primary_start_timeout}, 300 s by default, lets it try that long before it gives the lock up; 0
 * fails over instead when a replica can take over); {@link Scenario#ASYNC_POSTMASTER_KILLED}
 * measures that case.
 *
 * <p>Patroni's synchronous mode ({@code synchronous_mode: true}) promotes only a synchronous
 * standby, so an acknowledged claim survives: no key runs twice. Asynchronously, the replica is
 * promoted when it lags the last leader position Patroni recorded by at most {@code
 * maximum_lag_on_failover} bytes; the commits in that lag are lost and their keys may run again:
 * the test prints how many.
 *
 * <p>Everything runs as {@code postgres} when the test runs as root, since PostgreSQL refuses root
 * and Patroni runs initdb and postgres itself; etcd too, so that it writes into the same directory.
 * Tagged {@code slow} (20 to 75 s per setting): run it with {@code -Ptck-long}, or {@code
 * -Dit.test=PatroniFailoverIT -Dsurefire.excludedGroups=none}. It needs the Debian packages {@code
 * patroni} and {@code etcd-server}, which {@code scripts/install-patroni.sh} installs; the test
 * fails when they are missing.
 */
@Tag("slow")
class PatroniFailoverIT {
  private static final Path PATRONI = Path.of("/usr/bin/patroni");
  private static final Path ETCD = Path.of("/usr/bin/etcd");
  private static final int TTL = 10;
  private static final int LOOP_WAIT = 1;
  private static final int RETRY_TIMEOUT = 4;
  private static final int MAXIMUM_LAG_ON_FAILOVER = 1024 * 1024;

  /**
   * Longer than the outage (detection and promotion): no lease expires while its winner retries its
   * completion. A claim whose answer the crash lost keeps its key in flight this long.
   */
  private static final Duration LEASE = Duration.ofSeconds(60);

  private Path dir;
  private Process etcd;
  private final List<Node> nodes = new ArrayList<>();
  private String killedShmid;

  /** One Patroni node: its PostgreSQL port and data directory, its REST API port. */
  private record Node(String name, int pgPort, int apiPort, Path data, Process patroni) {}

  @AfterEach
  void stopEverythingAndDeleteTheDirectory() throws Exception {
    try {
      // the Patronis first: a Patroni left alive would start its PostgreSQL again
      for (Node n : nodes) {
        n.patroni().descendants().forEach(ProcessHandle::destroyForcibly);
        n.patroni().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      // Patroni starts the postmaster in a session of its own: it is no child of the Patroni
      for (Node n : nodes) {
        stopPostmaster(n.data());
      }
      if (killedShmid != null) {
        // the small System V segment a postmaster killed with -9 leaves behind
        new ProcessBuilder("ipcrm", "-m", killedShmid).start().waitFor(10, TimeUnit.SECONDS);
      }
      if (etcd != null) {
        etcd.destroy();
        if (!etcd.waitFor(10, TimeUnit.SECONDS)) {
          etcd.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    } finally {
      if (dir != null) {
        ChildProcesses.deleteTree(dir);
      }
    }
  }

  /** The replication setting and the fault. */
  enum Scenario {
    /** Asynchronous replication, the leader's host crashed: Patroni promotes the replica. */
    ASYNC_HOST_CRASH(false, true),
    /** Patroni's synchronous mode, the leader's host crashed: Patroni promotes the replica. */
    SYNC_HOST_CRASH(true, true),
    /**
     * Asynchronous replication, the leader's postmaster and backends killed, its Patroni alive:
     * Patroni restarts PostgreSQL in place (crash recovery from its own WAL), no failover.
     */
    ASYNC_POSTMASTER_KILLED(false, false);

    final boolean sync;
    final boolean hostCrash;

    Scenario(boolean sync, boolean hostCrash) {
      this.sync = sync;
      this.hostCrash = hostCrash;
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Scenario.class)
  @Timeout(300)
  void keysAcrossAPatroniFailover(Scenario scenario) throws Exception {
    requireInstalled(PATRONI);
    requireInstalled(ETCD);
    requireInstalled(PG_BIN.resolve("initdb"));
    dir = ChildProcesses.newDir("patroni-failover-", "postgres");
    int etcdPort = startEtcd();

    // the first node bootstraps the cluster (initdb) and leads; the second clones it
    Node first = startNode("node1", etcdPort, scenario.sync);
    awaitApi(first, "/primary", 90);
    Node second = startNode("node2", etcdPort, scenario.sync);
    awaitApi(second, "/replica", 90);
    PostgresNodes.awaitStreaming(first.pgPort(), scenario.sync ? "sync" : "async", 60);
    if (scenario.sync) {
      // Patroni records the synchronous standby in etcd (the only node it may promote) once the
      // standby is synchronous in pg_stat_replication
      awaitApi(second, "/sync", 30);
    }
    assertThat(PostgresNodes.inRecovery(first.pgPort())).as("node1 leads").isFalse();

    try (HikariDataSource pool =
        FailoverRun.pool(PostgresNodes.primaryUrl(first.pgPort(), second.pgPort()))) {
      JdbcKeyStore store =
          JdbcKeyStore.builder(pool).tableName("idem_patroni").createSchemaIfMissing().build();
      FailoverRun.Result result =
          FailoverRun.run(
              store,
              scenario.name(),
              LEASE,
              () -> kill(first, scenario.hostCrash),
              Duration.ofSeconds(150));

      Node leader = scenario.hostCrash ? second : first;
      assertThat(PostgresNodes.inRecovery(leader.pgPort()))
          .as("%s leads after the fault", leader.name())
          .isFalse();
      System.out.println(result.line("patroni " + scenario));
      if (scenario.sync || !scenario.hostCrash) {
        // synchronous: the promoted node has every acknowledged commit; restarted in place: the
        // node replays its own WAL, which a killed process does not lose
        assertThat(result.twice()).as("keys whose work ran twice").isZero();
      }
    }
  }

  /**
   * Kills the node's postmaster and backends with {@code kill -9} at once, and its Patroni with
   * them when {@code hostCrash}.
   */
  private void kill(Node node, boolean hostCrash) throws Exception {
    long postmaster = PostgresNodes.postmasterPid(node.data());
    List<Long> pids = new ArrayList<>(List.of(postmaster));
    ProcessHandle.of(postmaster).ifPresent(h -> h.descendants().forEach(b -> pids.add(b.pid())));
    if (hostCrash) {
      // the restarted postmaster of the other scenario removes the old segment itself
      killedShmid = PostgresNodes.sysvShmid(node.data());
      pids.add(node.patroni().pid());
      node.patroni().descendants().forEach(h -> pids.add(h.pid()));
    }
    ChildProcesses.signal("9", pids);
    PostgresNodes.awaitGone(node.pgPort());
  }

  private int startEtcd() throws Exception {
    int client = LoopbackPorts.closed();
    int peer = LoopbackPorts.closed();
    String clientUrl = "http://127.0.0.1:" + client;
    String peerUrl = "http://127.0.0.1:" + peer;
    etcd =
        start(
            dir.resolve("etcd.log"),
            asUser(
                "postgres",
                ETCD.toString(),
                "--name",
                "etcd1",
                "--data-dir",
                dir.resolve("etcd").toString(),
                "--listen-client-urls",
                clientUrl,
                "--advertise-client-urls",
                clientUrl,
                "--listen-peer-urls",
                peerUrl,
                "--initial-advertise-peer-urls",
                peerUrl,
                "--initial-cluster",
                "etcd1=" + peerUrl,
                "--initial-cluster-state",
                "new"));
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < end) {
      if (!etcd.isAlive()) {
        throw new IllegalStateException("etcd exited; its log:\n" + tail(dir.resolve("etcd.log")));
      }
      if (httpStatus(client, "/health") == 200) {
        return client;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new IllegalStateException(
        "etcd not healthy within 30 s; its log:\n" + tail(dir.resolve("etcd.log")));
  }

  private Node startNode(String name, int etcdPort, boolean sync) throws Exception {
    int pgPort = LoopbackPorts.closed();
    int apiPort = LoopbackPorts.closed();
    Path data = dir.resolve(name);
    Path config = dir.resolve(name + ".yml");
    Files.writeString(config, config(name, etcdPort, pgPort, apiPort, data, sync));
    Process patroni =
        start(
            dir.resolve(name + ".log"),
            asUser("postgres", "env", "HOME=" + dir, PATRONI.toString(), config.toString()));
    Node node = new Node(name, pgPort, apiPort, data, patroni);
    nodes.add(node);
    return node;
  }

  /**
   * A node's configuration. The {@code bootstrap.dcs} part is written to etcd by the node that
   * bootstraps the cluster and holds for both: a leader key living {@value #TTL} s, renewed every
   * {@value #LOOP_WAIT} s, and durability traded for speed as in the other failover test (fsync
   * off: a process crash loses nothing that fsync would keep).
   */
  private String config(
      String name, int etcdPort, int pgPort, int apiPort, Path data, boolean sync) {
    return """
        scope: idem-failover
        name: %1$s
        restapi:
          listen: 127.0.0.1:%4$d
          connect_address: 127.0.0.1:%4$d
        etcd3:
          hosts: 127.0.0.1:%2$d
        bootstrap:
          dcs:
            ttl: %6$d
            loop_wait: %7$d
            retry_timeout: %8$d
            maximum_lag_on_failover: %9$d
            synchronous_mode: %10$s
            synchronous_mode_strict: false
            postgresql:
              use_pg_rewind: false
              use_slots: true
              parameters:
                wal_level: replica
                max_wal_senders: 5
                max_replication_slots: 5
                synchronous_commit: 'on'
                fsync: 'off'
                full_page_writes: 'off'
                max_connections: 60
                shared_buffers: 16MB
                dynamic_shared_memory_type: mmap
          initdb:
            - encoding: UTF8
            - no-locale
            - no-sync
            - auth: trust
        postgresql:
          listen: 127.0.0.1:%3$d
          connect_address: 127.0.0.1:%3$d
          data_dir: %5$s
          bin_dir: %11$s
          pgpass: %12$s
          authentication:
            superuser:
              username: postgres
              password: postgres
            replication:
              username: replicator
              password: replicator
          pg_hba:
            - local all all trust
            - host all all 127.0.0.1/32 trust
            - host replication all 127.0.0.1/32 trust
          parameters:
            unix_socket_directories: '%13$s'
          basebackup:
            - checkpoint: fast
        """
        .formatted(
            name,
            etcdPort,
            pgPort,
            apiPort,
            data,
            TTL,
            LOOP_WAIT,
            RETRY_TIMEOUT,
            MAXIMUM_LAG_ON_FAILOVER,
            sync,
            PG_BIN,
            dir.resolve(name + ".pgpass"),
            dir);
  }

  /**
   * Waits until the node's REST API answers {@code path} with 200 (its role, in Patroni's terms).
   */
  private void awaitApi(Node node, String path, int seconds) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      if (!node.patroni().isAlive()) {
        throw new IllegalStateException(
            node.name()
                + "'s Patroni exited; its log:\n"
                + tail(dir.resolve(node.name() + ".log")));
      }
      if (httpStatus(node.apiPort(), path) == 200) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new IllegalStateException(
        node.name()
            + " did not answer 200 on "
            + path
            + " within "
            + seconds
            + " s; its log:\n"
            + tail(dir.resolve(node.name() + ".log")));
  }

  /** The status of a GET on loopback, or -1 when nothing answers. */
  private static int httpStatus(int port, String path) {
    try {
      HttpURLConnection c =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
      c.setConnectTimeout(1000);
      c.setReadTimeout(2000);
      try {
        return c.getResponseCode();
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Stops the postmaster of {@code data} if it still runs (immediate shutdown, which removes its
   * shared memory), by the pid in its postmaster.pid, checked against the process's command line.
   */
  private static void stopPostmaster(Path data) throws Exception {
    if (!Files.exists(data.resolve("postmaster.pid"))) {
      return;
    }
    long pid = PostgresNodes.postmasterPid(data);
    Optional<ProcessHandle> postmaster =
        ProcessHandle.of(pid)
            .filter(h -> h.info().commandLine().orElse("").contains(data.toString()));
    if (postmaster.isEmpty()) {
      return;
    }
    List<ProcessHandle> all = new ArrayList<>(List.of(postmaster.get()));
    postmaster.get().descendants().forEach(all::add);
    ChildProcesses.signal("QUIT", List.of(pid));
    try {
      postmaster.get().onExit().get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      all.forEach(ProcessHandle::destroyForcibly);
    }
  }

  private static void requireInstalled(Path binary) {
    if (!Files.isExecutable(binary)) {
      fail(
          binary
              + " is missing: run scripts/install-patroni.sh as root (it installs the Debian"
              + " packages patroni and etcd-server; PostgreSQL 15 comes from scripts/services.sh).");
    }
  }
}
