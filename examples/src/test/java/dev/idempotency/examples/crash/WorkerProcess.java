package dev.idempotency.examples.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One {@link CrashWorker} child JVM. Its stdout and stderr go to files, not pipes: a pipe nobody
 * drains can fill and stall the child, and the files keep the whole transcript for the failure
 * message after the child is dead. Failure messages come from the caller's {@code report}, which
 * wraps what went wrong with the database, the crash point and every worker's transcript.
 */
final class WorkerProcess {
  /**
   * Signal-killed children exit with 128 + the signal's number, as the shell reports them: 137 for
   * SIGKILL.
   */
  static final int KILLED_BY_SIGKILL = 128 + 9;

  private final String name;
  private final Process process;
  private final Path stdout;
  private final Path stderr;
  private final Path releaseFile;

  private WorkerProcess(String name, Process process, Path stdout, Path stderr, Path releaseFile) {
    this.name = name;
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
    this.releaseFile = releaseFile;
  }

  /**
   * Starts {@code java -cp <this JVM's class path> CrashWorker args…} with the database in its
   * environment.
   *
   * @param name how failure messages call it ("worker 1")
   * @param dir where its output files go
   */
  static WorkerProcess start(String name, Path dir, CrashDatabase.Target db, List<String> args)
      throws IOException {
    return start(name, CrashWorker.class, dir, db, args);
  }

  /**
   * Starts {@code java -cp <this JVM's class path> <main> args…} with the database in its
   * environment.
   *
   * @param name how failure messages call it ("worker 1")
   * @param main the worker's main class
   * @param dir where its output files go
   */
  static WorkerProcess start(
      String name, Class<?> main, Path dir, CrashDatabase.Target db, List<String> args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    // a short-lived JVM: C1 only and the serial collector start it faster, which is most of a crash
    // test's time
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-Xmx256m");
    String logging = System.getProperty("java.util.logging.config.file");
    if (logging != null) {
      command.add("-Djava.util.logging.config.file=" + logging);
    }
    command.add("-cp");
    // surefire runs the tests on the class path and sets java.class.path to it (the test classes,
    // the modules', the drivers, HikariCP), so the child sees the same classes as the test
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    String file = name.replace(' ', '-');
    Path out = dir.resolve(file + ".out");
    Path err = dir.resolve(file + ".err");
    Path release = dir.resolve(file + ".release");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().put("CRASH_JDBC_URL", db.url());
    builder.environment().put("CRASH_JDBC_USER", db.user());
    builder.environment().put("CRASH_JDBC_PASSWORD", db.password());
    builder.environment().put("CRASH_RELEASE_FILE", release.toString());
    return new WorkerProcess(name, builder.start(), out, err, release);
  }

  private static String javaExecutable() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  long pid() {
    return process.pid();
  }

  /** How failure messages and ledgers call the worker of {@code pid}: "worker n", 1-based. */
  static String nameOf(List<WorkerProcess> workers, long pid) {
    for (int i = 0; i < workers.size(); i++) {
      if (workers.get(i).pid() == pid) {
        return "worker " + (i + 1);
      }
    }
    return "unknown pid " + pid;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the line {@code READY <point>}; fails, with the transcript, if the worker exits first
   * or the timeout passes.
   */
  void awaitMarker(String point, Duration timeout, Function<String, String> report)
      throws InterruptedException {
    String marker = "READY " + point;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (stdoutLines().contains(marker)) {
        return;
      }
      if (!process.isAlive()) {
        // it may have printed the marker just before it died: read once more before failing
        if (stdoutLines().contains(marker)) {
          return;
        }
        fail(
            report.apply(
                name
                    + " exited with "
                    + process.exitValue()
                    + " before it printed '"
                    + marker
                    + "'"));
      }
      if (System.nanoTime() > deadline) {
        fail(report.apply(name + " did not print '" + marker + "' within " + timeout));
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /**
   * Kills the worker the way an operator or the OOM killer does: {@code /bin/kill -9 <pid>}, a
   * SIGKILL the JVM cannot catch (no shutdown hook, no finally block, no rollback from the client
   * side). Asserts that kill succeeded and that the process died of the signal.
   */
  void killDashNine(Function<String, String> report) throws IOException, InterruptedException {
    signal("9", report);
    // waitFor returns once the kernel reaped the child: its sockets are closed and its file locks
    // released
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      fail(report.apply(name + " still alive 10 s after kill -9"));
    }
    assertThat(process.exitValue())
        .as(() -> report.apply(name + " must have died of SIGKILL (exit code 137)"))
        .isEqualTo(KILLED_BY_SIGKILL);
  }

  /**
   * Stops the worker with {@code kill -STOP}: every thread of the JVM freezes, its heartbeats
   * included, as in a long GC pause or a suspended VM, while its connections stay open.
   */
  void pause(Function<String, String> report) throws IOException, InterruptedException {
    signal("STOP", report);
  }

  /** Lets a paused worker run again ({@code kill -CONT}), and releases it from its crash point. */
  void resumeAndRelease(Function<String, String> report) throws IOException, InterruptedException {
    release();
    signal("CONT", report);
  }

  /** Lets a worker waiting at its stop point go on (it polls for the file every millisecond). */
  void release() throws IOException {
    Files.createFile(releaseFile);
  }

  private void signal(String signal, Function<String, String> report)
      throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS)) {
      kill.destroyForcibly();
      fail(
          report.apply(
              "/bin/kill -" + signal + " " + process.pid() + " did not return within 10 s"));
    }
    String killOutput = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(kill.exitValue())
        .as(
            () ->
                report.apply(
                    "/bin/kill -"
                        + signal
                        + " "
                        + process.pid()
                        + " must succeed ("
                        + killOutput
                        + ")"))
        .isZero();
  }

  /** Waits for the worker to exit by itself; fails, with the transcript, after the timeout. */
  int awaitExit(Duration timeout, Function<String, String> report) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      fail(report.apply(name + " did not finish within " + timeout));
    }
    return process.exitValue();
  }

  /**
   * Kills the worker if it still runs, and waits for it: the test's cleanup, whatever happened.
   * SIGKILL ends a stopped process too.
   */
  void destroy() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  List<String> stdoutLines() {
    return read(stdout).lines().toList();
  }

  /** The last stdout line starting with {@code prefix + " "}, without the prefix. */
  Optional<String> line(String prefix) {
    List<String> lines = stdoutLines();
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (lines.get(i).startsWith(prefix + " ")) {
        return Optional.of(lines.get(i).substring(prefix.length() + 1));
      }
    }
    return Optional.empty();
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
