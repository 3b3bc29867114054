package dev.idempotency.examples.bootcrash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One {@link LedgerApplication} child JVM, on the test's class path, at a random port. Its stdout
 * and stderr go to files, not pipes: a pipe nobody drains can fill and stall the child, and the
 * files keep the transcript for failure messages after the child is dead.
 */
final class BootWorker {
  /** Signal-killed children exit with 128 + the signal's number: 137 for SIGKILL. */
  static final int KILLED_BY_SIGKILL = 128 + 9;

  /** Spring Boot with Hibernate starts in a few seconds here; a minute means it is stuck. */
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  final String name;
  private final Process process;
  private final Path stdout;
  private final Path stderr;

  private BootWorker(String name, Process process, Path stdout, Path stderr) {
    this.name = name;
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /**
   * Starts {@code java -cp <this JVM's class path> LedgerApplication} with {@code properties} as
   * Spring's command-line arguments, and the database's login in the environment (Spring's relaxed
   * binding reads {@code SPRING_DATASOURCE_*}), so that no password is on a command line.
   */
  static BootWorker start(
      String name, Path dir, Map<String, String> environment, List<String> properties)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    // a short-lived JVM: C1 only and the serial collector start it faster, which is most of the
    // test's time
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-Xmx256m");
    command.add("-cp");
    // surefire and failsafe set java.class.path to the test class path (or a jar whose manifest
    // lists it), so the child has the same classes as the test
    command.add(System.getProperty("java.class.path"));
    command.add(LedgerApplication.class.getName());
    command.addAll(properties);
    String file = name.replace(' ', '-');
    Path out = dir.resolve(file + ".out");
    Path err = dir.resolve(file + ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(environment);
    return new BootWorker(name, builder.start(), out, err);
  }

  long pid() {
    return process.pid();
  }

  /** Waits until it serves, and returns its port. */
  int awaitPort() throws InterruptedException {
    return Integer.parseInt(awaitLine("PORT ").substring("PORT ".length()));
  }

  /** Waits until the controller has written the row of {@code key}. */
  void awaitWritten(String key) throws InterruptedException {
    awaitLine("WRITTEN " + key);
  }

  /**
   * Waits for the first stdout line starting with {@code prefix}; fails, with the transcript, if
   * the worker exits first or {@link #TIMEOUT} passes.
   */
  private String awaitLine(String prefix) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      boolean alive = process.isAlive();
      // read after the liveness check: a line printed just before the worker died still counts
      for (String line : read(stdout).lines().toList()) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      if (!alive) {
        fail(
            name
                + " exited with "
                + process.exitValue()
                + " before '"
                + prefix
                + "'\n"
                + transcript());
      }
      if (System.nanoTime() > deadline) {
        fail(name + " did not print '" + prefix + "' within " + TIMEOUT + "\n" + transcript());
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /**
   * {@code kill -9}: {@link Process#destroyForcibly()} is SIGKILL on Linux, which the JVM cannot
   * catch (no shutdown hook, no finally block, no rollback from the client side). Asserts that the
   * process died of it; once {@code waitFor} returns the kernel has closed its sockets.
   */
  void killDashNine() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      fail(name + " still alive 10 s after SIGKILL\n" + transcript());
    }
    assertThat(process.exitValue())
        .as(() -> name + " must have died of SIGKILL\n" + transcript())
        .isEqualTo(KILLED_BY_SIGKILL);
  }

  /** The test's cleanup, whatever happened: kills it if it still runs. */
  void destroy() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Both outputs, for failure messages. */
  String transcript() {
    String exit = process.isAlive() ? "running" : "exit code " + process.exitValue();
    return "--- "
        + name
        + " (pid "
        + process.pid()
        + ", "
        + exit
        + ") stdout ---\n"
        + read(stdout)
        + "--- "
        + name
        + " stderr ---\n"
        + read(stderr)
        + "--- end of "
        + name
        + " ---\n";
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }
}
