package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Outcome;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.StoreUnavailableException;
import dev.idempotency.testing.TestDatabases;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The store when DynamoDB will not answer: throttled (through {@link DynamoFront}, which answers
 * DynamoDB's throttling error, since dynalite never throttles) and gone (a dynalite of the test's
 * own, killed with {@code kill -9} mid-request and started again on its data). In both the store
 * answers {@link StoreUnavailableException} within its call timeout, the engine fails closed (the
 * operation does not run), and nothing runs twice.
 */
class DynamoDbFaultsIT {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {7});
  private static final Duration LEASE = Duration.ofSeconds(30);

  private static StoredResponse run(AtomicInteger runs, String what) {
    runs.incrementAndGet();
    return StoredResponse.ofUtf8(201, what);
  }

  @Test
  void throttlingIsUnavailableTheEngineFailsClosedAndNothingRunsTwice() throws Exception {
    String table = Dynalite.table("throttled");
    AtomicInteger runs = new AtomicInteger();
    try (DynamoDbClient direct = Dynalite.client();
        DynamoFront front = DynamoFront.start(Dynalite.endpoint());
        DynamoDbClient client = Dynalite.client(front.uri());
        DynamoDbKeyStore store =
            DynamoDbKeyStore.builder(client)
                .tableName(table)
                .callTimeout(Duration.ofSeconds(2))
                .createTableIfMissing()
                .build();
        IdempotencyEngine engine = IdempotencyEngine.builder(store).lease(LEASE).build()) {
      try {
        RecordId id = RecordId.of("s", "throttled");
        front.throttle(op -> op.equals("UpdateItem"));
        Outcome refused = engine.execute(id, FP, e -> run(runs, "first"));
        assertThat(refused).isInstanceOf(Outcome.StoreUnavailable.class);
        assertThat(runs).as("the engine fails closed: the operation did not run").hasValue(0);
        assertThat(front.faultCount())
            .as("the SDK retried the throttled claim before giving up")
            .isGreaterThan(1);
        assertThat(store.lookup(id)).as("a refused claim decided nothing").isEmpty();

        // the claim passes, the completion is throttled: the response is not stored, the record
        // stays in flight, and a retry within the lease does not run the operation again
        front.throttle(op -> false);
        Outcome executed =
            engine.execute(
                id,
                FP,
                e -> {
                  front.throttle(op -> op.equals("UpdateItem"));
                  return run(runs, "second");
                });
        assertThat(executed).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) executed).stored()).isFalse();
        front.throttle(op -> false);
        assertThat(engine.execute(id, FP, e -> run(runs, "third")))
            .isInstanceOf(Outcome.InFlightConflict.class);
        assertThat(runs).hasValue(1);
      } finally {
        Dynalite.drop(direct, table);
      }
    }
  }

  /**
   * The lease of the engine whose server is killed: far longer than the test (kill, the store's
   * timeouts while it is down, the restart), so that "still in flight" after the restart is the
   * interrupted request's own lease and not a race against the wall clock.
   */
  private static final Duration LONG_LEASE = Duration.ofMinutes(10);

  @Test
  void aKilledServerIsUnavailableAndWhatCommittedSurvivesItsRestart() throws Exception {
    String cli = TestDatabases.require("IDEMPOTENCY_TEST_DYNALITE_CLI").get(0);
    Path data = Files.createTempDirectory("dynalite-killed");
    Process server = null;
    int port = 0;
    for (int attempt = 1; server == null; attempt++) {
      port = freePort();
      server = startDynalite(cli, port, data, attempt == 5);
    }
    AtomicInteger runs = new AtomicInteger();
    try {
      URI endpoint = URI.create("http://127.0.0.1:" + port);
      try (DynamoDbClient client = Dynalite.client(endpoint);
          DynamoDbKeyStore store =
              DynamoDbKeyStore.builder(client)
                  .tableName("records")
                  .callTimeout(Duration.ofSeconds(2))
                  .createTableIfMissing()
                  .build();
          IdempotencyEngine engine = IdempotencyEngine.builder(store).lease(LONG_LEASE).build()) {
        RecordId done = RecordId.of("s", "done");
        RecordId midway = RecordId.of("s", "midway");
        Outcome first = engine.execute(done, FP, e -> run(runs, "done"));
        assertThat(first).isInstanceOf(Outcome.Executed.class);

        // killed while the operation runs: the claim committed, the completion cannot
        Process killed = server;
        Outcome cut =
            engine.execute(
                midway,
                FP,
                e -> {
                  kill9(killed);
                  return run(runs, "midway");
                });
        assertThat(cut).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) cut).stored()).isFalse();
        assertThat(killed.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);

        // while it is down: unavailable, and the engine does not run the operation
        assertThat(engine.execute(RecordId.of("s", "down"), FP, e -> run(runs, "down")))
            .isInstanceOf(Outcome.StoreUnavailable.class);
        assertThatThrownBy(
                () ->
                    store.claim(
                        new ClaimRequest(done, FP, Instant.now(), LEASE, Duration.ofHours(24))))
            .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> store.lookup(done)).isInstanceOf(StoreUnavailableException.class);
        assertThat(runs).hasValue(2);

        // started again on its data: the completed request replays, the cut one is still in flight
        server = restartDynalite(cli, port, data);
        assertThat(engine.execute(done, FP, e -> run(runs, "done again")))
            .isInstanceOf(Outcome.Replayed.class)
            .extracting(o -> ((Outcome.Replayed) o).response().bodyAsUtf8())
            .isEqualTo("done");
        assertThat(engine.execute(midway, FP, e -> run(runs, "midway again")))
            .isInstanceOf(Outcome.InFlightConflict.class);
        assertThat(
                store.claim(
                    new ClaimRequest(midway, FP, Instant.now(), LONG_LEASE, Duration.ofHours(24))))
            .isInstanceOf(ClaimOutcome.InFlight.class);
        assertThat(runs).as("nothing ran twice").hasValue(2);
      }
    } finally {
      if (server != null) {
        server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      try (Stream<Path> files = Files.walk(data)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * Starts dynalite on {@code port}; null if another process took the port after {@link #freePort}
   * found it free (dynalite then exits with EADDRINUSE), so that the caller tries another, unless
   * {@code last}. Ready once dynalite prints that it listens: a connection alone could reach the
   * process that took the port.
   */
  private static Process startDynalite(String cli, int port, Path data, boolean last)
      throws Exception {
    Path log = data.resolveSibling(data.getFileName() + "-" + port + ".log");
    Files.deleteIfExists(log);
    Process p =
        new ProcessBuilder(
                "node",
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

  /**
   * Starts dynalite again on the port the client knows, trying for up to 5 s should the port not be
   * free at once.
   */
  private static Process restartDynalite(String cli, int port, Path data) throws Exception {
    for (int attempt = 1; attempt <= 50; attempt++) {
      Process p = startDynalite(cli, port, data, attempt == 50);
      if (p != null) {
        return p;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("port " + port + " stayed taken");
  }

  private static void kill9(Process p) throws Exception {
    Process kill = new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -9 " + p.pid() + " failed");
    }
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("dynalite " + p.pid() + " outlived kill -9");
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
