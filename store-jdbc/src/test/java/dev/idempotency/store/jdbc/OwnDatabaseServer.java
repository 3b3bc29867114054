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
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A database server of the test's own, on a loopback port of its own, in a throwaway directory
 * (under {@code /dev/shm} when there is one): a test may freeze it with {@code kill -STOP} without
 * touching the servers other tests share. Made for speed, never for durability: PostgreSQL with
 * fsync off; MariaDB without {@code mariadb-install-db} (its grant tables are skipped, so any user
 * logs in: 1.6 s to the first connection against 10 s with the install on a loaded 2-core machine),
 * InnoDB flushing once a second. Run as the service user ({@code postgres}, {@code mysql}) through
 * {@code setpriv} when the test runs as root, as neither server runs as root.
 *
 * <p>A missing server binary fails the test under {@code CI=true} and skips it otherwise, like
 * {@link dev.idempotency.testing.TestDatabases}.
 */
final class OwnDatabaseServer implements AutoCloseable {
  private static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");
  private static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");
  private static final long START_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final String name;
  private final Path dir;
  private final Process process;
  private final int port;
  private final String url;
  private final String user;
  private final Thread onExit;
  private boolean frozen;

  private OwnDatabaseServer(
      String name, Path dir, Process process, int port, String url, String user) {
    this.name = name;
    this.dir = dir;
    this.process = process;
    this.port = port;
    this.url = url;
    this.user = user;
    // a JVM that ends without close() (a test killed at its deadline) leaves no server behind
    this.onExit = new Thread(() -> process.descendants().forEach(ProcessHandle::destroyForcibly));
    Runtime.getRuntime().addShutdownHook(onExit);
  }

  /** A PostgreSQL 15 server: {@code initdb}, then {@code postgres} on a free port. */
  static OwnDatabaseServer postgres() throws Exception {
    requireExecutable(PG_BIN.resolve("initdb"));
    Path dir = newDir("pg-own-", "postgres");
    Path data = dir.resolve("data");
    run(
        dir.resolve("initdb.log"),
        asUser(
            "postgres",
            PG_BIN.resolve("initdb").toString(),
            "-D",
            data.toString(),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync"));
    int port = LoopbackPorts.closed();
    Process p =
        start(
            dir.resolve("server.log"),
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
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=100",
                "-c",
                "shared_buffers=16MB"));
    return new OwnDatabaseServer(
            "postgres",
            dir,
            p,
            port,
            "jdbc:postgresql://127.0.0.1:" + port + "/postgres",
            "postgres")
        .started(dir.resolve("server.log"));
  }

  /**
   * A MariaDB server ({@code mariadbd}) on a free port, with an empty database {@code gate}; any
   * user logs in without a password.
   */
  static OwnDatabaseServer mariadb() throws Exception {
    requireExecutable(MARIADBD);
    Path dir = newDir("mariadb-own-", "mysql");
    Path data = dir.resolve("data");
    Files.createDirectory(data);
    chown(data, "mysql");
    int port = LoopbackPorts.closed();
    List<String> command =
        new ArrayList<>(
            List.of(
                MARIADBD.toString(),
                "--no-defaults",
                "--datadir=" + data,
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mysqld.sock"),
                "--pid-file=" + dir.resolve("mysqld.pid"),
                "--log-error=" + dir.resolve("error.log"),
                "--skip-grant-tables",
                "--skip-name-resolve",
                "--skip-log-bin",
                "--innodb-flush-log-at-trx-commit=0",
                "--innodb-doublewrite=0",
                "--innodb-buffer-pool-size=32M",
                "--max-connections=200"));
    if (isRoot()) {
      command.add(2, "--user=mysql");
    }
    Process p = start(dir.resolve("console.log"), command);
    return new OwnDatabaseServer(
            "mariadb",
            dir,
            p,
            port,
            "jdbc:mariadb://127.0.0.1:" + port + "/gate?sslMode=disable",
            "gate")
        .started(dir.resolve("error.log"));
  }

  /** The server's JDBC URL with {@code params} ({@code k=v&k=v}) added. */
  String url(String params) {
    return url + (url.contains("?") ? "&" : "?") + params;
  }

  String user() {
    return user;
  }

  int port() {
    return port;
  }

  /**
   * Freezes every process of the server with {@code kill -STOP} (the postmaster first, so that it
   * forks no new backend meanwhile), and checks that the kernel shows them stopped: connections are
   * still accepted by the kernel, but nothing answers.
   */
  synchronized void freeze() throws Exception {
    signal("STOP", List.of(process.toHandle()));
    List<ProcessHandle> all = tree();
    signal("STOP", all);
    for (ProcessHandle h : all) {
      awaitState(h, 'T');
    }
    frozen = true;
  }

  /** Wakes every process of the server with {@code kill -CONT}. */
  synchronized void thaw() throws Exception {
    List<ProcessHandle> all = tree();
    Collections.reverse(all); // the backends first, the postmaster last
    signal("CONT", all);
    frozen = false;
  }

  /** Stops the server (thawed first) and deletes its directory. */
  @Override
  public synchronized void close() throws Exception {
    try {
      if (frozen) {
        thaw();
      }
      List<ProcessHandle> all = tree();
      // PostgreSQL's immediate shutdown (SIGQUIT) removes its shared memory, which kill -9 leaves
      signal("postgres".equals(name) ? "QUIT" : "TERM", List.of(process.toHandle()));
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        all.forEach(ProcessHandle::destroyForcibly);
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      Runtime.getRuntime().removeShutdownHook(onExit);
      deleteTree(dir);
    }
  }

  @Override
  public String toString() {
    return name + " pid " + process.pid() + " on 127.0.0.1:" + port;
  }

  private List<ProcessHandle> tree() {
    List<ProcessHandle> all = new ArrayList<>();
    all.add(process.toHandle());
    process.descendants().forEach(all::add);
    return all;
  }

  /** Waits until the server accepts a connection; returns it. */
  private OwnDatabaseServer started(Path log) throws Exception {
    long end = System.nanoTime() + START_DEADLINE_NANOS;
    String probe = url.replace("/gate?", "/?");
    SQLException last = null;
    while (System.nanoTime() < end) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            name + " exited with " + process.exitValue() + "; its log:\n" + tail(log));
      }
      try (Connection c = DriverManager.getConnection(probe, user, "");
          Statement s = c.createStatement()) {
        if ("mariadb".equals(name)) {
          s.execute("CREATE DATABASE IF NOT EXISTS gate");
        }
        return this;
      } catch (SQLException e) {
        last = e;
      }
      // polling: the server offers nothing to wait on but its port
      TimeUnit.MILLISECONDS.sleep(100);
    }
    close();
    throw new IllegalStateException(
        name + " accepted no connection within 60 s; its log:\n" + tail(log), last);
  }

  private static void awaitState(ProcessHandle h, char state) throws Exception {
    Path stat = Path.of("/proc", Long.toString(h.pid()), "stat");
    for (int i = 0; i < 200; i++) {
      if (!Files.exists(stat)) {
        return; // a backend that ended meanwhile
      }
      String s = Files.readString(stat, StandardCharsets.UTF_8);
      // the state follows the command name, which is in parentheses and may contain spaces
      if (s.charAt(s.lastIndexOf(')') + 2) == state) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    throw new IllegalStateException("process " + h.pid() + " did not reach state " + state);
  }

  private static void signal(String signal, List<ProcessHandle> processes) throws Exception {
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    processes.stream().filter(ProcessHandle::isAlive).forEach(h -> command.add("" + h.pid()));
    if (command.size() == 2) {
      return;
    }
    Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS)) {
      kill.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not return");
    }
    // a process that ended between the listing and the signal makes kill exit 1; that is fine
  }

  private static Path newDir(String prefix, String owner) throws IOException {
    Path shm = Path.of("/dev/shm");
    Path base =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
    Path dir = Files.createTempDirectory(base, prefix);
    chown(dir, owner);
    return dir;
  }

  private static void chown(Path p, String owner) throws IOException {
    if (isRoot()) {
      UserPrincipalLookupService users = p.getFileSystem().getUserPrincipalLookupService();
      Files.setOwner(p, users.lookupPrincipalByName(owner));
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static List<String> asUser(String user, String... command) {
    List<String> all = new ArrayList<>();
    if (isRoot()) {
      // setpriv execs the command (no fork), so the process started is the server itself
      all.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups", "--"));
    }
    all.addAll(List.of(command));
    return all;
  }

  private static void run(Path log, List<String> command) throws Exception {
    Process p = start(log, command);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(command.get(0) + " did not finish within 120 s");
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
    String message =
        binary
            + " is missing: install the server (scripts/services.sh installs it as root), then run"
            + " the tests again.";
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
