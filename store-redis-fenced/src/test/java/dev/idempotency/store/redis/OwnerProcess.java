package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * An {@link OwnerWorker} in a JVM of its own, started with this JVM's class path: a real owner
 * process the test can freeze ({@code kill -STOP}), wake ({@code kill -CONT}) and read. Output goes
 * to files (a pipe nobody drains could stall the child). {@link #close()} kills it; so does a
 * shutdown hook if the test JVM exits first (a test abandoned at its deadline), and the worker
 * exits by itself when its standard input, held open by this JVM, closes (a JVM killed outright).
 */
final class OwnerProcess implements AutoCloseable {
  private static final long STARTUP_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final String name;
  private final Process process;
  private final Path out;
  private final Path go;
  private final Thread killOnExit;
  private final long startedAt = System.nanoTime();

  private OwnerProcess(String name, Process process, Path out, Path go) {
    this.name = name;
    this.process = process;
    this.out = out;
    this.go = go;
    this.killOnExit = ChildProcesses.killOnExit(process);
  }

  /** Starts {@code OwnerWorker <mode> <go file> args…}. */
  static OwnerProcess start(String name, Path dir, String mode, String... args) throws IOException {
    Path out = dir.resolve(name + ".out");
    Path go = dir.resolve(name + ".go");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1"); // C1 and the serial collector: a faster start
    command.add("-XX:+UseSerialGC");
    command.add("-Xmx128m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(OwnerWorker.class.getName());
    command.add(mode);
    command.add(go.toString());
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE) // its end is the worker's watchdog
            .start();
    return new OwnerProcess(name, p, out, go);
  }

  /** Whether the worker has printed a line {@code <tag> <value>}. */
  boolean printed(String tag) {
    return line(tag).isPresent();
  }

  /**
   * The value of the first line {@code <tag> <value>}, waiting up to 20 s for it, and at least
   * until {@link #STARTUP_NANOS} after the worker started: its first line comes after a JVM's
   * start, and four JVMs started together on two cores at a load average of 15 took 23 s to it.
   */
  String await(String tag) throws InterruptedException {
    long deadline =
        Math.max(System.nanoTime() + TimeUnit.SECONDS.toNanos(20), startedAt + STARTUP_NANOS);
    while (true) {
      Optional<String> value = line(tag);
      if (value.isPresent()) {
        return value.get();
      }
      if (!process.isAlive() && line(tag).isEmpty()) {
        fail(name + " exited before printing " + tag + ":\n" + transcript());
      }
      if (System.nanoTime() > deadline) {
        fail(
            name
                + " did not print "
                + tag
                + " within 20 s (60 s after its start):\n"
                + transcript());
      }
      Thread.sleep(10);
    }
  }

  /** The value of the first line {@code <tag> <value>} printed so far. */
  Optional<String> line(String tag) {
    return lines().stream()
        .filter(l -> l.startsWith(tag + " "))
        .map(l -> l.substring(tag.length() + 1))
        .findFirst();
  }

  /** Lets the worker go on from where it waits (it polls for the file). */
  void go() throws IOException {
    Files.createFile(go);
  }

  /** Closes the worker's standard input, as the death of this JVM would. */
  void closeInput() throws IOException {
    process.getOutputStream().close();
  }

  void freeze() throws Exception {
    signal("STOP");
  }

  void thaw() throws Exception {
    signal("CONT");
  }

  /** Waits up to 30 s for the worker to end, and returns its exit code. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      fail(name + " did not end within 30 s:\n" + transcript());
    }
    return process.exitValue();
  }

  String transcript() {
    return "--- " + name + " (pid " + process.pid() + ") ---\n" + String.join("\n", lines());
  }

  private List<String> lines() {
    try {
      return Files.exists(out) ? Files.readAllLines(out, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      return List.of("(cannot read " + out + ": " + e + ")");
    }
  }

  private void signal(String signal) throws Exception {
    Process kill =
        new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(process.pid())).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %s", signal, name).isZero();
  }

  @Override
  public void close() throws InterruptedException {
    ChildProcesses.kill(process, killOnExit);
  }
}
