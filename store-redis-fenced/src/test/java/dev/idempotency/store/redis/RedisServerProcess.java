package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A {@code redis-server} process of the test's own, on a free loopback port in a directory of its
 * own, so that a test can kill it ({@code kill -9}), freeze it ({@code kill -STOP}) and restart it
 * without touching the shared server other test runs use. Needs {@code redis-server} on the {@code
 * PATH} ({@code scripts/services.sh} installs it): without it the test fails in CI and is skipped
 * locally. {@link #close()} kills it, whatever state it is in; a shutdown hook does if the test JVM
 * exits first (a test abandoned at its deadline, a fork ended by the build).
 */
final class RedisServerProcess implements AutoCloseable {
  private final Path dir;
  private final int port;
  private final List<String> leading;
  private final List<String> options;
  private Process process;
  private Thread killOnExit;

  private RedisServerProcess(Path dir, int port, List<String> leading, List<String> options)
      throws IOException {
    this.dir = dir;
    this.port = port;
    this.leading = leading;
    this.options = options;
    this.process = launch();
    this.killOnExit = ChildProcesses.killOnExit(process);
  }

  /**
   * Starts a server with {@code options} (for example {@code "--appendonly", "yes"}) after the
   * project's defaults: loopback, no RDB snapshots, AOF off unless the options turn it on.
   */
  static RedisServerProcess start(Path dir, String... options) throws IOException {
    requireBinary();
    return new RedisServerProcess(dir, freePort(), List.of(), List.of(options));
  }

  /**
   * Starts a Sentinel ({@code redis-server sentinel.conf --sentinel}) whose configuration file, in
   * {@code dir}, holds {@code configLines}: Sentinel needs a file it can rewrite (it records there
   * the replicas, the other sentinels and each failover), so its settings cannot all be options.
   */
  static RedisServerProcess startSentinel(Path dir, List<String> configLines) throws IOException {
    requireBinary();
    Path config = dir.resolve("sentinel.conf");
    Files.write(config, configLines, StandardCharsets.UTF_8);
    return new RedisServerProcess(
        dir, freePort(), List.of(config.toString(), "--sentinel"), List.of());
  }

  /** Fails (CI) or skips (locally) unless {@code redis-server} is on the {@code PATH}. */
  static void requireBinary() {
    for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(p, "redis-server"))) {
        return;
      }
    }
    String message =
        "redis-server is not on the PATH: install it with `bash scripts/services.sh` (Debian's"
            + " redis-server package), then run the tests again.";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(message);
    }
    Assumptions.abort(message);
  }

  int port() {
    return port;
  }

  String uri() {
    return "redis://127.0.0.1:" + port;
  }

  long pid() {
    return process.pid();
  }

  private Process launch() throws IOException {
    List<String> command = new ArrayList<>();
    command.add("redis-server");
    command.addAll(leading);
    command.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            dir.toString(),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--logfile",
            dir.resolve("redis.log").toString()));
    command.addAll(options);
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.out").toFile())
            .start();
    awaitAccepting(p);
    return p;
  }

  private void awaitAccepting(Process p) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IOException("redis-server exited: " + log());
      }
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] reply = new byte[7];
        int n = s.getInputStream().read(reply);
        if (n > 0 && new String(reply, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG")) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet, or still loading its data
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    throw new IOException("redis-server did not answer PING within 20 s: " + log());
  }

  /** {@code kill -9}: no shutdown, no last AOF write beyond what it already did. */
  void killDashNine() throws Exception {
    signal("KILL");
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("redis-server dies of kill -9").isTrue();
  }

  /** {@code kill -STOP}: the server keeps its connections open and answers nothing. */
  void freeze() throws Exception {
    signal("STOP");
  }

  /** {@code kill -CONT}. */
  void thaw() throws Exception {
    signal("CONT");
  }

  /** Starts the server again on the same port and directory (after {@link #killDashNine}). */
  void restart() throws IOException {
    ChildProcesses.forget(killOnExit);
    process = launch();
    killOnExit = ChildProcesses.killOnExit(process);
  }

  /**
   * {@code kill -STOP} of every one of {@code servers} in one {@code kill} command, so that none
   * runs on while another is already frozen (two replicas of one primary: neither takes a write the
   * other has not).
   */
  static void freezeTogether(RedisServerProcess... servers) throws Exception {
    signal("STOP", servers);
  }

  private void signal(String signal) throws Exception {
    signal(signal, this);
  }

  private static void signal(String signal, RedisServerProcess... servers) throws Exception {
    List<String> command = new ArrayList<>(List.of("/bin/kill", "-" + signal));
    for (RedisServerProcess server : servers) {
      command.add(Long.toString(server.pid()));
    }
    Process kill = new ProcessBuilder(command).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as(String.join(" ", command)).isZero();
  }

  String log() {
    try {
      Path log = dir.resolve("redis.log");
      return Files.exists(log) ? Files.readString(log) : "(no log)";
    } catch (IOException e) {
      return "(cannot read the log: " + e + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    ChildProcesses.kill(process, killOnExit);
  }
}
