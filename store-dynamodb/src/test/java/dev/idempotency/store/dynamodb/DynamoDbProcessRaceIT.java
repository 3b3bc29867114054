package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Four JVMs, each an application instance with its own SDK client, race for one key: they wait
 * before the claim and are released together (they poll for a file every millisecond). One runs the
 * request; the other three wait while it is in flight and replay its response, byte for byte; the
 * ledger holds one run. The TCK races threads over several clients in one JVM; this is the same
 * race between processes.
 */
class DynamoDbProcessRaceIT {
  private static final int WORKERS = 4;

  @Test
  void oneOfFourProcessesRunsTheRequestAndTheOthersReplayIt() throws Exception {
    URI endpoint = Dynalite.endpoint();
    String table = Dynalite.table("race");
    String ledger = Dynalite.table("ledger");
    Path dir = Files.createTempDirectory("dynamodb-race");
    Path release = dir.resolve("release");
    List<Process> workers = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    try (DynamoDbClient client = Dynalite.client();
        DynamoDbKeyStore unused =
            DynamoDbKeyStore.builder(client).tableName(table).createTableIfMissing().build()) {
      // the ledger: a table of the same definition (partition key pk), one item per run
      DynamoDbKeyStore.builder(client).tableName(ledger).createTableIfMissing().build().close();
      try {
        for (int i = 0; i < WORKERS; i++) {
          Path out = dir.resolve("worker-" + i + ".out");
          outputs.add(out);
          workers.add(
              new ProcessBuilder(
                      javaExecutable(),
                      "-XX:TieredStopAtLevel=1",
                      "-XX:+UseSerialGC",
                      "-Xmx256m",
                      "-cp",
                      System.getProperty("java.class.path"),
                      RaceWorker.class.getName(),
                      endpoint.toString(),
                      table,
                      ledger,
                      "order-1",
                      release.toString())
                  .redirectErrorStream(true)
                  .redirectOutput(out.toFile())
                  .start());
        }
        for (int i = 0; i < WORKERS; i++) {
          awaitLine(outputs.get(i), workers.get(i), "READY");
        }
        Files.createFile(release);
        for (Process w : workers) {
          if (!w.waitFor(60, TimeUnit.SECONDS)) {
            fail("a worker did not finish within 60 s: " + transcripts(outputs));
          }
        }
        List<String> results = new ArrayList<>();
        for (Path out : outputs) {
          results.add(outcomeLine(out));
        }
        List<String> executed = results.stream().filter(r -> r.startsWith("EXECUTED ")).toList();
        assertThat(executed).as(transcripts(outputs)).hasSize(1);
        assertThat(executed.get(0)).endsWith(" stored=true");
        String body =
            executed.get(0).substring("EXECUTED ".length(), executed.get(0).indexOf(" stored="));
        assertThat(results)
            .as(transcripts(outputs))
            .filteredOn(r -> r.startsWith("REPLAYED "))
            .hasSize(WORKERS - 1)
            .allMatch(r -> r.equals("REPLAYED " + body));
        assertThat(client.scan(b -> b.tableName(ledger).consistentRead(true)).count())
            .as("runs in the ledger")
            .isEqualTo(1);
      } finally {
        workers.forEach(Process::destroyForcibly);
        for (Process w : workers) {
          w.waitFor(10, TimeUnit.SECONDS);
        }
        Dynalite.drop(client, table);
        Dynalite.drop(client, ledger);
      }
    }
  }

  private static void awaitLine(Path out, Process p, String line) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readAllLines(out).contains(line)) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        fail("worker did not print " + line + ": " + Files.readString(out));
      }
      Thread.sleep(20);
    }
  }

  /**
   * The worker's answer: its last line that says what the engine did. Not simply its last line: the
   * worker's stderr goes to the same file, and a renewal the engine's close interrupts logs a
   * warning after the answer (seen in CI on a loaded machine).
   */
  private static String outcomeLine(Path out) throws Exception {
    List<String> lines = Files.readAllLines(out);
    for (int i = lines.size() - 1; i >= 0; i--) {
      String line = lines.get(i);
      if (line.startsWith("EXECUTED ")
          || line.startsWith("REPLAYED ")
          || line.startsWith("OTHER ")) {
        return line;
      }
    }
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }

  private static String transcripts(List<Path> outputs) throws Exception {
    StringBuilder sb = new StringBuilder();
    for (Path out : outputs) {
      sb.append("\n--- ").append(out.getFileName()).append('\n').append(Files.readString(out));
    }
    return sb.toString();
  }

  private static String javaExecutable() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}
