package dev.idempotency.store.jdbc;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Child processes of the failover tests: commands run as a service user when the test runs as root,
 * their output in a log file, throwaway directories under {@code /dev/shm} when there is one.
 */
final class ChildProcesses {
  private ChildProcesses() {}

  static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** {@code command} run as {@code user} when the test runs as root (PostgreSQL refuses root). */
  static List<String> asUser(String user, String... command) {
    List<String> all = new ArrayList<>();
    if (isRoot()) {
      // setpriv execs the command (no fork): the process started is the command itself
      all.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups", "--"));
    }
    all.addAll(List.of(command));
    return all;
  }

  /** Runs {@code command} to its end; fails with the tail of its log when it fails. */
  static void run(Path log, List<String> command) throws Exception {
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

  /** Starts {@code command} with its output (stdout and stderr) in {@code log}. */
  static Process start(Path log, List<String> command) throws IOException {
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .start();
  }

  /** The last 30 lines of a log, for a failure message. */
  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Sends {@code signal} to the processes; one that has ended meanwhile is no error. */
  static void signal(String signal, List<Long> pids) throws Exception {
    if (pids.isEmpty()) {
      return;
    }
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(pid -> command.add(Long.toString(pid)));
    Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS)) {
      kill.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not return");
    }
  }

  /** A new directory owned by {@code owner} (when the test runs as root). */
  static Path newDir(String prefix, String owner) throws IOException {
    Path shm = Path.of("/dev/shm");
    Path base =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
    Path dir = Files.createTempDirectory(base, prefix);
    if (isRoot()) {
      UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
      Files.setOwner(dir, users.lookupPrincipalByName(owner));
    }
    return dir;
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * Fails the test under {@code CI=true} and skips it otherwise when {@code binary} is missing;
   * {@code install} says how to install it.
   */
  static void requireExecutable(Path binary, String install) {
    if (Files.isExecutable(binary)) {
      return;
    }
    String message = binary + " is missing: " + install;
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(message);
    }
    Assumptions.abort(message);
  }
}
