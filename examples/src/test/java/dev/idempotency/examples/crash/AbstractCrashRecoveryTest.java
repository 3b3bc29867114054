package dev.idempotency.examples.crash;

import static dev.idempotency.examples.crash.CrashWorker.CHARGED;
import static dev.idempotency.examples.crash.CrashWorker.SHIPPED;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.examples.crash.CrashWorker.CrashPoint;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash recovery with real processes: a {@link CrashWorker} JVM runs a two-phase request (charge,
 * then ship) through the engine and the JDBC store, is killed with {@code kill -9} at a named
 * point, and a second worker JVM then sends the same request (same scope, key and fingerprint) once
 * the dead worker's lease has expired. The business ledger, written in the same transactions as the
 * key's checkpoint and completion, shows what happened: a charge must never be made twice, nor
 * lost.
 *
 * <p>Each test has its own key and its own tables (or, for H2, its own database file), so the tests
 * are independent. One subclass per database.
 */
@Timeout(
    value = 3,
    unit = TimeUnit.MINUTES) // the outer bound; every wait inside has its own, shorter one
abstract class AbstractCrashRecoveryTest {
  /**
   * A worker JVM starts and reaches its crash point in well under a second (about 0.4 s measured on
   * two cores); a minute means it is stuck, and its output, in the failure message, says where.
   */
  private static final Duration WORKER_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path tempDir;

  private final List<WorkerProcess> workers = new ArrayList<>();
  private CrashDatabase.Target db;
  private String recordsTable;
  private String ledgerTable;
  private RecordId id;
  private Fingerprint fingerprint;

  /** Where the running test stops its first worker, for failure messages. */
  private String scenario = "-";

  /** The database this subclass runs against. */
  abstract CrashDatabase database();

  @BeforeEach
  void createTables(TestInfo test) throws Exception {
    db = database().target(tempDir);
    String suffix = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    recordsTable = "crash_rec_" + suffix;
    ledgerTable = "crash_ledger_" + suffix;
    id =
        RecordId.of(
            "crash-tests", "order-" + test.getTestMethod().orElseThrow().getName() + "-" + suffix);
    fingerprint =
        Fingerprint.of(
            MessageDigest.getInstance("SHA-256")
                .digest(("POST /orders " + id.key().value()).getBytes(StandardCharsets.UTF_8)));
    db.createTables(recordsTable, ledgerTable);
  }

  @AfterEach
  void killWorkersAndDropTables(TestInfo test) throws Exception {
    for (WorkerProcess w : workers) {
      w.destroy(); // a test that failed half-way must not leave a blocked worker behind
    }
    // the workers' output, passed or failed, in the test's output file (surefire redirects it to
    // target/surefire-reports/<class>-output.txt): the record of what each process did before its
    // kill
    if (db != null && !workers.isEmpty()) {
      System.out.println("=== " + db.database().label + " " + test.getDisplayName());
      workers.forEach(w -> System.out.print(w.transcript()));
    }
    if (db == null) {
      return; // skipped before the tables existed
    }
    db.dropTables(recordsTable, ledgerTable);
  }

  /**
   * Killed with only the claim committed: nothing of the request's work is in the database, so the
   * second worker takes the record over (its lease expired) and runs both steps, once each.
   */
  @Test
  void killedAfterClaimTakesOverAndChargesOnce() throws Exception {
    WorkerProcess first = crash(CrashPoint.AFTER_CLAIM);

    Observed afterKill = observe();
    assertThat(afterKill.describe())
        .as(context("after the kill: in flight, no recovery point, no ledger row"))
        .isEqualTo("IN_FLIGHT rp=- ledger=[]");

    takeOverAndFinish(null);
    assertThat(first.stdoutLines())
        .as(context("the first worker never charged"))
        .doesNotContain("CHARGED");
  }

  /**
   * Killed inside the charge phase, with the ledger row written but not committed: the connection
   * dies with the process and the database rolls the transaction back, so no charge remains, the
   * record has no recovery point, and the takeover charges once.
   */
  @Test
  void killedInsideTheChargeTransactionLeavesNoChargeAndTheTakeoverChargesOnce() throws Exception {
    crash(CrashPoint.DURING_CHARGE);

    Observed afterKill = observe();
    assertThat(afterKill.describe())
        .as(
            context(
                "after the kill: the uncommitted charge is gone, and the record has no recovery point"))
        .isEqualTo("IN_FLIGHT rp=- ledger=[]");

    takeOverAndFinish(null);
  }

  /**
   * Killed after the charge's business write and its fenced checkpoint ran, before {@code
   * commit()}: the dead transaction holds the record's row lock. The database rolls it back when
   * the connection drops, which frees the lock, so the takeover's claim is not blocked for long,
   * and it charges once.
   */
  @Test
  void killedHoldingTheUncommittedCheckpointLeavesNoChargeAndTheTakeoverChargesOnce()
      throws Exception {
    crash(CrashPoint.BEFORE_CHARGE_COMMIT);

    Observed afterKill = observe();
    assertThat(afterKill.describe())
        .as(context("after the kill: the written but uncommitted charge and checkpoint are gone"))
        .isEqualTo("IN_FLIGHT rp=- ledger=[]");

    takeOverAndFinish(null);
  }

  /**
   * Killed after the charge committed together with its recovery point: the second worker resumes
   * from that point, skips the charge, and ships. One charge (the first worker's), one shipment
   * (the second's).
   */
  @Test
  void killedAfterChargeResumesWithoutChargingTwice() throws Exception {
    WorkerProcess first = crash(CrashPoint.AFTER_CHARGE);
    assertThat(first.stdoutLines())
        .as(context("the first worker committed its charge"))
        .contains("CHARGED");

    Observed afterKill = observe();
    assertThat(afterKill.describe())
        .as(context("after the kill: in flight at the recovery point, the charge committed"))
        .isEqualTo("IN_FLIGHT rp=" + CHARGED + " ledger=[" + CHARGED + " by worker 1]");

    WorkerProcess second = takeOverAndFinish(CHARGED);
    assertThat(second.stdoutLines())
        .as(context("the second worker skipped the charge"))
        .contains("CHARGE-SKIPPED resumeFrom=" + CHARGED)
        .doesNotContain("CHARGED");
  }

  /**
   * Killed inside the completion's transaction, after the charge had committed with its recovery
   * point: the shipping row and the completion roll back together, the record stays in flight at
   * {@code charged}, and the second worker resumes there and ships once.
   */
  @Test
  void killedInsideTheCompletionTransactionResumesAndShipsOnce() throws Exception {
    crash(CrashPoint.DURING_COMPLETE);

    Observed afterKill = observe();
    assertThat(afterKill.describe())
        .as(
            context(
                "after the kill: the charge committed, the uncommitted shipment and completion are gone"))
        .isEqualTo("IN_FLIGHT rp=" + CHARGED + " ledger=[" + CHARGED + " by worker 1]");

    takeOverAndFinish(CHARGED);
  }

  /**
   * Killed after the completion committed, before the response reached anyone: the retry is a
   * replay of the stored response, byte for byte the one the first worker produced, and the
   * operation does not run again.
   */
  @Test
  void killedAfterCompletionReplaysTheStoredResponseByteForByte() throws Exception {
    WorkerProcess first = crash(CrashPoint.AFTER_COMPLETE);
    Optional<String> original = first.line("RESPONSE");
    assertThat(original).as(context("the first worker's committed response")).isPresent();

    Observed afterKill = observe();
    assertThat(afterKill.describe())
        .as(context("after the kill: complete, with the first worker's response"))
        .isEqualTo(
            "COMPLETE rp="
                + CHARGED
                + " response="
                + original.get()
                + " ledger=["
                + CHARGED
                + " by worker 1, "
                + SHIPPED
                + " by worker 1]");

    WorkerProcess second = takeOver(false);
    assertThat(second.line("RUN"))
        .as(context("the operation did not run in the second worker"))
        .isEmpty();
    assertThat(second.line("OUTCOME"))
        .as(context("the second worker's outcome: the first response, replayed"))
        .hasValue("Replayed " + original.get());

    Observed end = observe();
    assertThat(end.ledger)
        .as(context("the ledger: unchanged by the replay"))
        .containsExactly(CHARGED + " by worker 1", SHIPPED + " by worker 1");
  }

  /**
   * Not dead, only frozen ({@code kill -STOP}, as a long GC pause or a suspended VM freezes it,
   * connections open): its lease runs out, the second worker takes the record over and finishes the
   * request. When the first wakes ({@code kill -CONT}) and charges, its fence is stale: the
   * checkpoint's fenced write refuses it, its whole phase rolls back with the charge, and its
   * engine throws {@code LeaseLostException}. A lease alone cannot tell a dead owner from a slow
   * one; the fence is what makes the takeover safe.
   */
  @Test
  void aPausedWorkerThatWakesAfterTheTakeoverCannotChargeAgain() throws Exception {
    Assumptions.assumeTrue(
        database() != CrashDatabase.H2_FILE,
        "H2 in file mode is opened by one process at a "
            + "time: a frozen owner keeps the file, so no second process can take over while it lives");
    scenario = "after-claim, paused with kill -STOP instead of killed";
    WorkerProcess first = start(CrashPoint.AFTER_CLAIM, false);
    first.awaitMarker(CrashPoint.AFTER_CLAIM.arg, WORKER_TIMEOUT, this::report);
    first.pause(this::report);

    WorkerProcess second = takeOver(false);
    assertThat(second.line("OUTCOME"))
        .as(context("the second worker took over and finished the request"))
        .hasValueSatisfying(o -> assertThat(o).startsWith("Executed resumed=false stored=true"));

    first.resumeAndRelease(this::report);
    int exit = first.awaitExit(WORKER_TIMEOUT, this::report);
    assertThat(first.line("FAILED"))
        .as(context("the woken worker's charge was refused by the fence"))
        .hasValueSatisfying(f -> assertThat(f).startsWith("dev.idempotency.LeaseLostException"));
    assertThat(exit).as(context("the woken worker's exit code: the request failed")).isEqualTo(2);

    Observed end = observe();
    assertThat(end.ledger)
        .as(context("the ledger: the woken worker's charge rolled back"))
        .containsExactly(CHARGED + " by worker 2", SHIPPED + " by worker 2");
    assertCompletedBy(second, end);
  }

  /**
   * Four processes with the same request, released together at the claim (each with its connection
   * open): one claims and runs it, the others wait while it is in flight and then replay its
   * response. One charge, one shipment. The TCK races threads over several connection pools in one
   * JVM; this races whole processes.
   */
  @Test
  void racingProcessesRunTheRequestOnceAndReplayItsResponse() throws Exception {
    Assumptions.assumeTrue(
        database() != CrashDatabase.H2_FILE,
        "H2 in file mode is opened by one process at a " + "time: processes cannot race on it");
    scenario = "four processes released together at the claim";
    List<WorkerProcess> racers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      WorkerProcess w = start(CrashPoint.BEFORE_CLAIM, false);
      racers.add(w);
    }
    for (WorkerProcess w : racers) {
      w.awaitMarker(CrashPoint.BEFORE_CLAIM.arg, WORKER_TIMEOUT, this::report);
    }
    for (WorkerProcess w : racers) {
      w.release();
    }
    List<WorkerProcess> executed = new ArrayList<>();
    for (WorkerProcess w : racers) {
      assertThat(w.awaitExit(WORKER_TIMEOUT, this::report))
          .as(context("every racer finishes"))
          .isZero();
      if (w.line("OUTCOME").orElse("").startsWith("Executed")) {
        executed.add(w);
      }
    }
    assertThat(executed).as(context("exactly one racer ran the request")).hasSize(1);
    WorkerProcess winner = executed.get(0);
    String response = winner.line("RESPONSE").orElseThrow();
    for (WorkerProcess w : racers) {
      if (w != winner) {
        assertThat(w.line("OUTCOME"))
            .as(context("a losing racer replays the winner's response"))
            .hasValue("Replayed " + response);
        assertThat(w.line("RUN"))
            .as(context("the operation did not run in a losing racer"))
            .isEmpty();
      }
    }
    String by = workerName(winner.pid());
    assertThat(observe().ledger)
        .as(context("the ledger: one charge and one shipment, by the winner"))
        .containsExactly(CHARGED + " by " + by, SHIPPED + " by " + by);
  }

  /**
   * The control: a worker that ignores its recovery point charges again after the same crash, and
   * these tests see it. Without it, a ledger that could not record a second charge would make the
   * tests above pass whatever the library did.
   */
  @Test
  void aWorkerThatIgnoresTheRecoveryPointIsSeenChargingTwice() throws Exception {
    crash(CrashPoint.AFTER_CHARGE);

    takeOver(true);

    assertThat(observe().ledger)
        .as(context("the ledger after a naive takeover that charges again"))
        .containsExactly(
            CHARGED + " by worker 1", CHARGED + " by worker 2", SHIPPED + " by worker 2");
  }

  // ------------------------------------------------------------------------------------------------ helpers

  /**
   * Starts worker 1, waits for it to reach {@code point}, and kills it with {@code kill -9} there.
   */
  private WorkerProcess crash(CrashPoint point) throws Exception {
    scenario = "crash point " + point.arg;
    WorkerProcess w = start(point, false);
    w.awaitMarker(point.arg, WORKER_TIMEOUT, this::report);
    w.killDashNine(this::report);
    return w;
  }

  /**
   * Starts worker 2 with the same request and no crash point, and waits for it to finish. Its
   * engine polls the claim while the dead worker's lease runs out, then takes over (or replays a
   * completed record).
   */
  private WorkerProcess takeOver(boolean naive) throws Exception {
    WorkerProcess w = start(CrashPoint.NONE, naive);
    int exit = w.awaitExit(WORKER_TIMEOUT, this::report);
    assertThat(exit).as(context("worker 2 must finish with exit code 0")).isZero();
    return w;
  }

  /**
   * Worker 2 takes the record over and finishes the request: it starts from {@code resumeFrom}
   * ({@code null}: from the start, so it charges itself), and in the end the ledger holds one
   * charge and one shipment (worker 2's) and the record is complete with worker 2's response.
   */
  private WorkerProcess takeOverAndFinish(String resumeFrom) throws Exception {
    boolean resumes = resumeFrom != null;
    WorkerProcess second = takeOver(false);
    assertThat(second.line("RUN"))
        .as(
            context(
                resumes
                    ? "the second worker resumed from the recovery point"
                    : "the second worker took the record over from the start"))
        .hasValueSatisfying(
            run ->
                assertThat(run)
                    .endsWith("takeover=true resumeFrom=" + (resumes ? resumeFrom : "-")));
    assertThat(second.line("OUTCOME"))
        .as(
            context(
                "the second worker's outcome: executed"
                    + (resumes ? ", resumed" : ", not resumed")))
        .hasValueSatisfying(
            o -> assertThat(o).startsWith("Executed resumed=" + resumes + " stored=true"));

    String chargedBy = resumes ? "worker 1" : "worker 2";
    Observed end = observe();
    assertThat(end.ledger)
        .as(
            context(
                "the ledger: one charge ("
                    + chargedBy
                    + "'s, any other rolled back) and one"
                    + " shipment (worker 2's)"))
        .containsExactly(CHARGED + " by " + chargedBy, SHIPPED + " by worker 2");
    assertCompletedBy(second, end);
    return second;
  }

  private void assertCompletedBy(WorkerProcess worker, Observed end) {
    assertThat(end.describe())
        .as(context("the record: complete, with the second worker's response"))
        .startsWith(
            "COMPLETE rp="
                + CHARGED
                + " response="
                + worker.line("RESPONSE").orElseThrow()
                + " ledger=");
  }

  private WorkerProcess start(CrashPoint point, boolean naive) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                recordsTable,
                ledgerTable,
                id.scope().value(),
                id.key().value(),
                fingerprint.hex(),
                point.arg));
    if (naive) {
      args.add("naive");
    }
    WorkerProcess w = WorkerProcess.start("worker " + (workers.size() + 1), tempDir, db, args);
    workers.add(w);
    return w;
  }

  /** The record and the ledger as the database has them now, read between the workers' lives. */
  private record Observed(Optional<RecordSnapshot> record, List<String> ledger) {
    String describe() {
      String rec =
          record
              .map(
                  r ->
                      r.state()
                          + " rp="
                          + r.recoveryPoint().map(RecoveryPoint::name).orElse("-")
                          + r.response()
                              .map(resp -> " response=" + CrashWorker.describe(resp))
                              .orElse(""))
              .orElse("ABSENT");
      return rec + " ledger=" + ledger;
    }
  }

  private Observed observe() throws SQLException {
    try (HikariDataSource ds = db.pool()) {
      Optional<RecordSnapshot> record =
          JdbcKeyStore.builder(ds).tableName(recordsTable).build().lookup(id);
      List<String> ledger = db.ledger(ds, ledgerTable, id.key().value(), this::workerName);
      record.ifPresent(r -> assertThat(r.state()).isIn(KeyState.IN_FLIGHT, KeyState.COMPLETE));
      return new Observed(record, ledger);
    }
  }

  private String workerName(long pid) {
    return WorkerProcess.nameOf(workers, pid);
  }

  /**
   * A failure message: the database, the crash point, what was expected, and every worker's output.
   */
  private Supplier<String> context(String expected) {
    return () -> report(expected);
  }

  private String report(String what) {
    StringBuilder sb =
        new StringBuilder(
            db.database().label
                + ", "
                + scenario
                + ", key "
                + id.key().value()
                + ": "
                + what
                + "\n");
    for (WorkerProcess w : workers) {
      sb.append(w.transcript());
    }
    return sb.toString();
  }
}
