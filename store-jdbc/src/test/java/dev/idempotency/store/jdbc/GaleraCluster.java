package dev.idempotency.store.jdbc;

import static org.junit.jupiter.api.Assertions.fail;

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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A MariaDB Galera cluster of the test's own: three {@code mariadbd} nodes on loopback, each with a
 * datadir of its own made by {@code mariadb-install-db} (under {@code /dev/shm} when there is one),
 * with free ports for SQL, group communication, IST and SST. The first node bootstraps the cluster
 * ({@code --wsrep-new-cluster}); the others join it one after the other, each receiving the donor's
 * datadir by the {@code rsync} SST. Made for speed, never for durability: InnoDB flushes its log
 * once a second, no doublewrite. Run as {@code mysql} through {@code setpriv} when the test runs as
 * root.
 *
 * <p>A missing binary ({@code mariadbd}, the Galera library, {@code rsync}) fails the test under
 * {@code CI=true} and skips it otherwise.
 */
final class GaleraCluster implements AutoCloseable {
  private static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");
  private static final Path INSTALL_DB = Path.of("/usr/bin/mariadb-install-db");
  private static final Path GALERA = Path.of("/usr/lib/galera/libgalera_smm.so");
  private static final Path RSYNC = Path.of("/usr/bin/rsync");
  private static final long SYNC_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** The database the tests use, created once the cluster is whole. */
  static final String DATABASE = "idem";

  private final Path dir;
  private final List<Node> nodes = new ArrayList<>();
  private final Thread onExit;

  /** One node: its ports and, once started, its process. */
  private static final class Node {
    final int index;
    final int sqlPort;
    final int groupPort;
    final int istPort;
    final int sstPort;
    Process process;

    Node(int index) throws IOException {
      this.index = index;
      this.sqlPort = LoopbackPorts.closed();
      this.groupPort = LoopbackPorts.closed();
      this.istPort = LoopbackPorts.closed();
      this.sstPort = LoopbackPorts.closed();
    }
  }

  private GaleraCluster(Path dir) {
    this.dir = dir;
    // a JVM that ends without close() (a test killed at its deadline) leaves no node behind
    this.onExit =
        new Thread(
            () ->
                nodes.stream()
                    .filter(n -> n.process != null)
                    .forEach(n -> n.process.destroyForcibly()));
    Runtime.getRuntime().addShutdownHook(onExit);
  }

  /** Starts {@code size} nodes and waits until every one is synced with the group. */
  static GaleraCluster start(int size) throws Exception {
    requireExecutable(MARIADBD);
    requireExecutable(INSTALL_DB);
    requireExecutable(RSYNC);
    if (!Files.exists(GALERA)) {
      missing(GALERA);
    }
    GaleraCluster cluster = new GaleraCluster(newDir());
    try {
      for (int i = 1; i <= size; i++) {
        cluster.nodes.add(new Node(i));
      }
      for (Node n : cluster.nodes) {
        cluster.install(n);
      }
      for (Node n : cluster.nodes) {
        cluster.launch(n, n.index == 1);
        cluster.awaitSynced(n);
      }
      try (Connection c = DriverManager.getConnection(cluster.directUrl(1), "root", "");
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + DATABASE);
      }
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  int size() {
    return nodes.size();
  }

  /**
   * A URL for {@code node} (1-based) that fails over to the other nodes in turn ({@code
   * sequential}), with {@code params} ({@code k=v&k=v}).
   */
  String failoverUrl(int node, String params) {
    List<Node> order = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      order.add(nodes.get((node - 1 + i) % nodes.size()));
    }
    return "jdbc:mariadb:sequential://"
        + order.stream().map(n -> "127.0.0.1:" + n.sqlPort).collect(Collectors.joining(","))
        + "/"
        + DATABASE
        + "?"
        + params;
  }

  /** A URL for {@code node} alone, without a database. */
  String directUrl(int node) {
    return "jdbc:mariadb://127.0.0.1:" + nodes.get(node - 1).sqlPort + "/?connectTimeout=2000";
  }

  /** A status variable of {@code node}, for example {@code wsrep_local_cert_failures}. */
  long status(int node, String variable) throws SQLException {
    try (Connection c = DriverManager.getConnection(directUrl(node), "root", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + variable + "'")) {
      return rs.next() ? Long.parseLong(rs.getString(2)) : -1;
    }
  }

  /** Kills {@code node} with {@code kill -9}, as a crashed host, and waits until it is gone. */
  void kill(int node) throws Exception {
    Process p = nodes.get(node - 1).process;
    new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("node " + node + " outlived kill -9");
    }
  }

  /**
   * Starts a killed {@code node} again and waits until it has rejoined the group (a state transfer
   * from a donor, as its datadir lost its position with the kill).
   */
  void restart(int node) throws Exception {
    Node n = nodes.get(node - 1);
    launch(n, false);
    awaitSynced(n);
  }

  /** Stops every node still running (SIGTERM, then SIGKILL) and deletes the directory. */
  @Override
  public void close() throws Exception {
    try {
      for (Node n : nodes) {
        if (n.process != null && n.process.isAlive()) {
          // an SST script's children (rsync) first: they may outlive the server
          n.process.descendants().forEach(ProcessHandle::destroyForcibly);
          n.process.destroy();
        }
      }
      for (Node n : nodes) {
        if (n.process != null && !n.process.waitFor(20, TimeUnit.SECONDS)) {
          n.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    } finally {
      Runtime.getRuntime().removeShutdownHook(onExit);
      deleteTree(dir);
    }
  }

  private Path data(Node n) {
    return dir.resolve("node" + n.index);
  }

  private void install(Node n) throws Exception {
    run(
        dir.resolve("install" + n.index + ".log"),
        asMysql(
            INSTALL_DB.toString(),
            "--no-defaults",
            "--datadir=" + data(n),
            "--auth-root-authentication-method=normal",
            "--skip-test-db"));
  }

  private void launch(Node n, boolean bootstrap) throws IOException {
    String peers =
        nodes.stream().map(o -> "127.0.0.1:" + o.groupPort).collect(Collectors.joining(","));
    List<String> command =
        new ArrayList<>(
            List.of(
                MARIADBD.toString(),
                "--no-defaults",
                "--datadir=" + data(n),
                "--port=" + n.sqlPort,
                "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("node" + n.index + ".sock"),
                "--pid-file=" + dir.resolve("node" + n.index + ".pid"),
                "--log-error=" + errorLog(n),
                "--skip-name-resolve",
                "--innodb-flush-log-at-trx-commit=0",
                "--innodb-doublewrite=0",
                "--innodb-buffer-pool-size=32M",
                "--max-connections=200",
                // what Galera requires: row events, interleaved auto-increment locks
                "--binlog-format=ROW",
                "--innodb-autoinc-lock-mode=2",
                "--wsrep-on=ON",
                "--wsrep-provider=" + GALERA,
                "--wsrep-cluster-name=idempotency-test",
                "--wsrep-node-name=node" + n.index,
                "--wsrep-node-address=127.0.0.1:" + n.groupPort,
                "--wsrep-cluster-address=gcomm://" + (bootstrap ? "" : peers),
                "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:"
                    + n.groupPort
                    + ";ist.recv_addr=127.0.0.1:"
                    + n.istPort
                    + ";gcache.size=32M",
                "--wsrep-sst-method=rsync",
                "--wsrep-sst-receive-address=127.0.0.1:" + n.sstPort));
    if (bootstrap) {
      command.add("--wsrep-new-cluster");
    }
    if (isRoot()) {
      command.add(2, "--user=mysql");
    }
    n.process = start(dir.resolve("node" + n.index + ".console"), asMysql(command));
  }

  private Path errorLog(Node n) {
    return dir.resolve("node" + n.index + ".err");
  }

  private void awaitSynced(Node n) throws Exception {
    long end = System.nanoTime() + SYNC_DEADLINE_NANOS;
    String state = "(no connection)";
    while (System.nanoTime() < end) {
      if (!n.process.isAlive()) {
        throw new IllegalStateException(
            "node " + n.index + " exited; its log:\n" + tail(errorLog(n)));
      }
      try (Connection c = DriverManager.getConnection(directUrl(n.index), "root", "");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'")) {
        state = rs.next() ? rs.getString(2) : "(none)";
        if ("Synced".equals(state)) {
          return;
        }
      } catch (SQLException e) {
        state = "(no connection: " + e.getMessage() + ")";
      }
      // polling: the node offers nothing to wait on but its status
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new IllegalStateException(
        "node "
            + n.index
            + " not synced within 60 s ("
            + state
            + "); its log:\n"
            + tail(errorLog(n)));
  }

  private static Path newDir() throws IOException {
    Path shm = Path.of("/dev/shm");
    Path base =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
    Path dir = Files.createTempDirectory(base, "galera-");
    if (isRoot()) {
      UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
      Files.setOwner(dir, users.lookupPrincipalByName("mysql"));
    }
    return dir;
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static List<String> asMysql(String... command) {
    return asMysql(List.of(command));
  }

  private static List<String> asMysql(List<String> command) {
    List<String> all = new ArrayList<>();
    if (isRoot()) {
      // setpriv execs the command (no fork), so the process started is the server itself
      all.addAll(List.of("setpriv", "--reuid=mysql", "--regid=mysql", "--clear-groups", "--"));
    }
    all.addAll(command);
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
    if (!Files.isExecutable(binary)) {
      missing(binary);
    }
  }

  private static void missing(Path file) {
    String message =
        file
            + " is missing: install mariadb-server, galera-4 and rsync (scripts/services.sh does,"
            + " as root), then run the tests again.";
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
