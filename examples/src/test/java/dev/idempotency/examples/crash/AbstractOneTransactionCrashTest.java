package dev.idempotency.examples.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.RecordId;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.JettyHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash of a process serving a request in one transaction, with real processes: a {@link
 * OneTransactionHttpWorker} JVM (Jetty, the servlet filter, an endpoint rule in one transaction,
 * the JDBC store) receives {@code POST /orders} over HTTP, writes its ledger row on the request's
 * transaction, and is killed with {@code kill -9} (or frozen with {@code kill -STOP}) before the
 * commit. The database rolls the claim and the row back together when the connection drops, so the
 * retry, sent to a second worker JVM, runs as a first attempt and commits the only ledger row. Each
 * test has its own tables (for H2 its own database file). One subclass per database.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // the outer bound; every wait inside has its own
abstract class AbstractOneTransactionCrashTest {
  /** A worker JVM starts Jetty in about a second; a minute means it is stuck. */
  private static final Duration WORKER_TIMEOUT = Duration.ofSeconds(60);

  private static final String BODY = "{\"item\":42,\"amount\":\"42.00\"}";

  @TempDir Path tempDir;

  private final List<WorkerProcess> workers = new ArrayList<>();
  // a repetition gets a client of its own: a worker of the next may listen on a port the last one
  // used, and a connection the shared client pooled to it is dead
  private HttpClient client = JettyHarness.CLIENT;
  // the folder of the workers' signals: a repetition gets one of its own, or its serving worker
  // would find the last one's release and stop at once
  private Path workerDir;
  private CrashDatabase.Target db;
  private String recordsTable;
  private String ledgerTable;
  private String key;

  /** The database this subclass runs against. */
  abstract CrashDatabase database();

  @BeforeEach
  void createTables(TestInfo test) throws Exception {
    workerDir = tempDir;
    db = database().target(tempDir);
    String suffix = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    recordsTable = "otx_crash_rec_" + suffix;
    ledgerTable = "otx_crash_ledger_" + suffix;
    key = "order-" + test.getTestMethod().orElseThrow().getName() + "-" + suffix;
    db.createTables(recordsTable, ledgerTable);
  }

  @AfterEach
  void killWorkersAndDropTables(TestInfo test) throws Exception {
    for (WorkerProcess w : workers) {
      w.destroy();
    }
    if (db == null) {
      return; // skipped before the tables existed
    }
    System.out.println("=== " + db.database().label + " " + test.getDisplayName());
    workers.forEach(w -> System.out.print(w.transcript()));
    db.dropTables(recordsTable, ledgerTable);
  }

  /**
   * Killed after its ledger row, before the commit: the client never gets an answer, and neither
   * the record nor the row remains. The retry, to a second process, runs as a first attempt and
   * commits one row; the retry after it replays that response byte for byte.
   */
  @Test
  @Timeout(value = 20, unit = TimeUnit.MINUTES) // each repetition's waits have bounds of their own
  void killedHoldingItsTransactionLeavesNothingAndTheRetryRunsAsAFirstAttempt() throws Exception {
    // once per build; -Didempotency.crash.repetitions=20 runs the kill 20 times, a fresh key each
    int repetitions = Integer.getInteger("idempotency.crash.repetitions", 1);
    String firstKey = key;
    for (int i = 1; i <= repetitions; i++) {
      key = i == 1 ? firstKey : firstKey + "-" + i;
      if (i > 1) {
        for (WorkerProcess w : workers) {
          w.destroy();
        }
        workers.clear(); // worker names restart at 1: the ledger names the second worker's row
        workerDir = Files.createDirectories(tempDir.resolve("repetition-" + i));
        client =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
      }
      killedBeforeTheCommitThenRetried();
    }
    System.out.println(
        "ONE-TRANSACTION CRASH GATE "
            + db.database().label
            + ": "
            + repetitions
            + " kill(s) before the commit, each key with one row, by the retry");
  }

  private void killedBeforeTheCommitThenRetried() throws Exception {
    WorkerProcess first = start(OneTransactionHttpWorker.BEFORE_COMMIT);
    CompletableFuture<HttpResponse<byte[]>> lost =
        client.sendAsync(order(serving(first)), HttpResponse.BodyHandlers.ofByteArray());
    first.awaitMarker(OneTransactionHttpWorker.BEFORE_COMMIT, WORKER_TIMEOUT, this::report);
    if (database() != CrashDatabase.H2_FILE) { // the file is the first worker's while it lives
      assertThat(observe())
          .as(report("while the transaction is open, another connection sees nothing of it"))
          .isEqualTo("ABSENT ledger=[]");
    }

    first.killDashNine(this::report);

    assertThat(lost)
        .as(report("the first client got no answer"))
        .failsWithin(10, TimeUnit.SECONDS)
        .withThrowableOfType(ExecutionException.class);
    assertThat(observe())
        .as(report("after the kill: the database rolled the claim and the row back"))
        .isEqualTo("ABSENT ledger=[]");

    WorkerProcess second = start("none");
    URI orders = serving(second);
    HttpResponse<byte[]> retry = send(orders);
    assertThat(retry.statusCode()).as(report("the retry's status")).isEqualTo(201);
    assertThat(retry.headers().firstValue("Idempotent-Replayed"))
        .as(report("the retry ran, as a first attempt"))
        .isEmpty();
    HttpResponse<byte[]> again = send(orders);
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(again.body()).as(report("the replay, byte for byte")).isEqualTo(retry.body());

    stop(second);
    assertThat(observe())
        .as(report("in the end: one row, by the second worker, and the record complete"))
        .isEqualTo("COMPLETE ledger=[ordered by worker 2]");
  }

  /**
   * Frozen ({@code kill -STOP}) after its ledger row, before the commit, its connection open: a
   * duplicate sent to a second process waits on the record's lock up to the store's statement
   * timeout and gets the in-flight 409, nothing written. Once the frozen process is killed, the
   * database rolls its transaction back and the retry runs as a first attempt.
   */
  @Test
  void aFrozenOwnerHoldsItsDuplicatesInFlightUntilItDies() throws Exception {
    Assumptions.assumeTrue(
        database() != CrashDatabase.H2_FILE,
        "H2 in file mode is opened by one process at a time: no second process can serve while"
            + " the frozen one keeps the file");
    WorkerProcess first = start(OneTransactionHttpWorker.BEFORE_COMMIT);
    CompletableFuture<HttpResponse<byte[]>> lost =
        client.sendAsync(order(serving(first)), HttpResponse.BodyHandlers.ofByteArray());
    first.awaitMarker(OneTransactionHttpWorker.BEFORE_COMMIT, WORKER_TIMEOUT, this::report);
    first.pause(this::report);
    WorkerProcess second = start("none");
    URI orders = serving(second);

    HttpResponse<byte[]> duplicate = send(orders);

    assertThat(duplicate.statusCode()).as(report("the duplicate's status")).isEqualTo(409);
    assertThat(new String(duplicate.body(), StandardCharsets.UTF_8))
        .contains("\"code\":\"idempotency_request_in_flight\"");
    assertThat(second.line("INSERTED")).as(report("the duplicate did not run")).isEmpty();

    first.killDashNine(this::report);
    assertThat(lost).failsWithin(10, TimeUnit.SECONDS);
    HttpResponse<byte[]> retry = send(orders);
    assertThat(retry.statusCode()).as(report("the retry after the kill")).isEqualTo(201);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
    stop(second);
    assertThat(observe())
        .as(report("one row, by the second worker"))
        .isEqualTo("COMPLETE ledger=[ordered by worker 2]");
  }

  private WorkerProcess start(String crashPoint) throws Exception {
    WorkerProcess w =
        WorkerProcess.start(
            "worker " + (workers.size() + 1),
            OneTransactionHttpWorker.class,
            workerDir,
            db,
            List.of(recordsTable, ledgerTable, crashPoint));
    workers.add(w);
    return w;
  }

  /**
   * Lets a serving worker end (it closes Jetty, its engine and its pool), and waits for it: an H2
   * file is open in one process at a time, so the test reads it only after.
   */
  private void stop(WorkerProcess worker) throws Exception {
    worker.release();
    assertThat(worker.awaitExit(WORKER_TIMEOUT, this::report))
        .as(report("the serving worker's exit code"))
        .isZero();
  }

  /** Waits until {@code worker} serves, and returns its {@code /orders}. */
  private URI serving(WorkerProcess worker) throws InterruptedException {
    worker.awaitMarker("serving", WORKER_TIMEOUT, this::report);
    return URI.create("http://127.0.0.1:" + worker.line("PORT").orElseThrow() + "/orders");
  }

  private HttpRequest order(URI orders) {
    return HttpRequest.newBuilder(orders)
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", key)
        .POST(HttpRequest.BodyPublishers.ofString(BODY))
        .build();
  }

  private HttpResponse<byte[]> send(URI orders) throws Exception {
    return client.send(order(orders), HttpResponse.BodyHandlers.ofByteArray());
  }

  /** The record's state (or ABSENT) and the ledger rows of the key, as the database has them. */
  private String observe() throws Exception {
    try (HikariDataSource ds = db.pool()) {
      String record =
          JdbcKeyStore.builder(ds)
              .tableName(recordsTable)
              .build()
              .lookup(RecordId.of(OneTransactionHttpWorker.SCOPE, key))
              .map(r -> r.state().toString())
              .orElse("ABSENT");
      List<String> ledger =
          db.ledger(ds, ledgerTable, key, pid -> WorkerProcess.nameOf(workers, pid));
      return record + " ledger=" + ledger;
    }
  }

  /** A failure message: the database, the key, what was expected, and every worker's output. */
  private String report(String what) {
    StringBuilder sb = new StringBuilder(db.database().label + ", key " + key + ": " + what + "\n");
    workers.forEach(w -> sb.append(w.transcript()));
    return sb.toString();
  }
}
