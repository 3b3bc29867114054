package dev.idempotency.store.dynamodb;

import dev.idempotency.testing.TestDatabases;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A dynalite of the test's own (never the shared one), on a free loopback port with a data
 * directory of its own, so that a test can freeze it ({@code kill -STOP}), kill it ({@code kill
 * -9}) and start it again on the same port and data. Needs {@code IDEMPOTENCY_TEST_DYNALITE_CLI}
 * (failing in CI and skipping locally without it). {@link #close()} kills it, frozen or not, and
 * deletes its data.
 */
final class DynaliteProcess implements AutoCloseable {
  /**
   * Loaded before dynalite: dynalite 4.0.0 throws from a request's {@code error} event when a
   * client aborts a request it is still reading ({@code req.on('error', function (err) { throw err
   * })} in its {@code index.js}), and the process exits. A client that gives up on a frozen server
   * does exactly that: after {@code kill -CONT} dynalite reads the requests whose callers have
   * gone, and died in one of four frozen gates. DynamoDB answers its other clients on; so does this
   * dynalite, which ignores that one error (and exits on any other, as Node.js would).
   */
  private static final String SURVIVE_ABORTED_REQUESTS =
      """
      process.on('uncaughtException', function (err) {
        if (err && err.code === 'ECONNRESET') {
          console.error('ignored an aborted request: ' + err.message)
          return
        }
        console.error(err)
        process.exit(1)
      })
      """;

  private final String cli;
  private final Path data;
  private final int port;
  private Process process;

  private DynaliteProcess(String cli, Path data, int port, Process process) {
    this.cli = cli;
    this.data = data;
    this.port = port;
    this.process = process;
  }

  /** Starts one on a free port, trying another should a second process take the port first. */
  static DynaliteProcess start() throws Exception {
    String cli = TestDatabases.require("IDEMPOTENCY_TEST_DYNALITE_CLI").get(0);
    Path data = Files.createTempDirectory("dynalite-own");
    for (int attempt = 1; ; attempt++) {
      int port = freePort();
      Process p = launch(cli, port, data, attempt == 5);
      if (p != null) {
        return new DynaliteProcess(cli, data, port, p);
      }
    }
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The running process (replaced by {@link #restart()}). */
  Process process() {
    return process;
  }

  /** {@code kill -STOP}: its connections stay open, nothing is answered. */
  void freeze() throws Exception {
    signal("STOP");
  }

  /** {@code kill -CONT}. */
  void thaw() throws Exception {
    signal("CONT");
  }

  /** {@code kill -9}, waiting until it died. */
  void killDashNine() throws Exception {
    signal("KILL");
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("dynalite " + process.pid() + " outlived kill -9");
    }
  }

  /**
   * Starts it again on the port the clients know and on its data, trying for up to 5 s should the
   * port not be free at once.
   */
  void restart() throws Exception {
    for (int attempt = 1; attempt <= 50; attempt++) {
      Process p = launch(cli, port, data, attempt == 50);
      if (p != null) {
        process = p;
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("port " + port + " stayed taken");
  }

  private void signal(String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
    }
  }

  /**
   * Starts dynalite on {@code port}; null if another process took the port after {@link #freePort}
   * found it free (dynalite then exits with EADDRINUSE), so that the caller tries another, unless
   * {@code last}. Ready once dynalite prints that it listens: a connection alone could reach the
   * process that took the port.
   */
  private static @Nullable Process launch(String cli, int port, Path data, boolean last)
      throws Exception {
    Path log = data.resolveSibling(data.getFileName() + "-" + port + ".log");
    Files.deleteIfExists(log);
    Path preload = data.resolveSibling(data.getFileName() + "-survive-aborts.js");
    Files.writeString(preload, SURVIVE_ABORTED_REQUESTS);
    Process p =
        new ProcessBuilder(
                "node",
                "--require",
                preload.toString(),
                cli,
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--path",
                data.toString(),
                "--createTableMs",
                "0")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      String out = Files.exists(log) ? Files.readString(log) : "";
      if (out.contains("listening at")) {
        return p;
      }
      if (!p.isAlive() && out.contains("EADDRINUSE") && !last) {
        return null;
      }
      if (!p.isAlive() || System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException("dynalite did not start on port " + port + ": " + out);
      }
      Thread.sleep(50);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    try {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    } finally {
      try (Stream<Path> files = Files.walk(data)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
      Files.deleteIfExists(data.resolveSibling(data.getFileName() + "-survive-aborts.js"));
    }
  }
}
