package dev.idempotency.examples.crash;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * One application instance handling one request, as a child JVM that {@link
 * AbstractCrashRecoveryTest} kills with {@code kill -9}: the real thing a crash is (no shutdown
 * hooks, no finally blocks, sockets closed by the kernel, open transactions left to the database),
 * which no in-process simulation gives.
 *
 * <p>The request is a two-phase order: phase one charges (a {@code charged} row in the ledger,
 * committed with the recovery point {@code charged} through {@link JdbcKeyStore#inPhase}), phase
 * two ships (a {@code shipped} row, committed with the stored response through {@link
 * JdbcKeyStore#completeWith}). At the crash point named by its argument the worker prints {@code
 * READY <point>}, flushes, and blocks until it is killed.
 *
 * <p>Arguments: {@code <records table> <ledger table> <scope> <key> <fingerprint hex> <crash point>
 * [naive]}; the JDBC URL, user and password come from the environment ({@code CRASH_JDBC_URL},
 * {@code CRASH_JDBC_USER}, {@code CRASH_JDBC_PASSWORD}), so that the password is not on a command
 * line {@code ps} shows. {@code naive} makes the operation ignore its recovery point and charge
 * again: the control that shows the tests can see a double charge.
 *
 * <p>Lines on stdout, one fact each, for the test to parse: {@code RUN fence=… takeover=…
 * resumeFrom=…}, {@code CHARGED}, {@code CHARGE-SKIPPED}, {@code RESPONSE …}, {@code READY
 * <point>}, {@code RELEASED <point>}, and last, for a run that is not killed, {@code OUTCOME …} or
 * {@code FAILED <exception>: <message>}. Exit codes: 0 done, 2 the request failed, 3 never killed
 * (a stuck test), 4 the parent died, 64 bad arguments.
 */
public final class CrashWorker {

  /** Where the worker stops for the kill. */
  enum CrashPoint {
    /** The claim committed, nothing else: inside the operation, before any phase. */
    /**
     * Not a crash: the worker has its connection and waits before the claim until released, so that
     * the test can release several workers at once and their claims race.
     */
    BEFORE_CLAIM("before-claim"),
    AFTER_CLAIM("after-claim"),
    /** Inside the charge phase's transaction: the ledger row is written but not committed. */
    DURING_CHARGE("during-charge"),
    /**
     * The charge and the fenced checkpoint are written, the record's row is locked by the phase's
     * transaction, and {@code commit()} has not been sent: the worker dies holding the lock its
     * successor's claim needs.
     */
    BEFORE_CHARGE_COMMIT("before-charge-commit"),
    /** The charge and its recovery point committed; the shipping phase has not begun. */
    AFTER_CHARGE("after-charge"),
    /** Inside the completion's transaction: the shipping row is written but not committed. */
    DURING_COMPLETE("during-complete"),
    /**
     * The completion committed with the response; the engine returned, the response was never
     * delivered.
     */
    AFTER_COMPLETE("after-complete"),
    /** No crash: run to the end and print the outcome. */
    NONE("none");

    final String arg;

    CrashPoint(String arg) {
      this.arg = arg;
    }

    static CrashPoint parse(String s) {
      for (CrashPoint p : values()) {
        if (p.arg.equals(s)) {
          return p;
        }
      }
      throw new IllegalArgumentException("unknown crash point '" + s + "'");
    }
  }

  /**
   * The lease: short so that the takeover comes quickly; the heartbeat is derived (a third of it).
   */
  static final Duration LEASE = Duration.ofSeconds(1);

  /**
   * A blocked worker nobody kills gives up after this, so that a broken test leaves no process
   * behind for long.
   */
  private static final Duration MAX_BLOCK = Duration.ofSeconds(120);

  static final String CHARGED = "charged";
  static final String SHIPPED = "shipped";

  private static final PrintStream OUT = System.out;

  private CrashWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 6 || args.length > 7 || (args.length == 7 && !"naive".equals(args[6]))) {
      System.err.println(
          "usage: CrashWorker <records table> <ledger table> <scope> <key> <fingerprint hex> <"
              + "before-claim|after-claim|during-charge|before-charge-commit|after-charge|during-complete|after-complete|none"
              + "> [naive]");
      System.exit(64);
    }
    String recordsTable = args[0];
    String ledgerTable = args[1];
    RecordId id = RecordId.of(args[2], args[3]);
    Fingerprint fingerprint = Fingerprint.fromHex(args[4]);
    CrashPoint crashPoint = CrashPoint.parse(args[5]);
    boolean naive = args.length == 7;
    long pid = ProcessHandle.current().pid();

    haltWithTheTestJvm();
    // the operation's transaction and the heartbeat each need a connection at the same time
    try (HikariDataSource hikari = poolFromEnvironment(3)) {
      // the store reaches the pool through the commit gate, the only way to stop between its fenced
      // write and its commit (the store has no hook there, nor should it)
      CommitGate gate =
          new CommitGate(crashPoint == CrashPoint.BEFORE_CHARGE_COMMIT ? crashPoint : null);
      DataSource dataSource = gate.wrap(hikari);
      // The database clock (the default) judges the lease: the two workers are two machines as far
      // as the store is concerned, and only the database's clock is common to them.
      JdbcKeyStore store = JdbcKeyStore.builder(dataSource).tableName(recordsTable).build();
      IdempotencyEngine engine =
          IdempotencyEngine.builder(store)
              .config(
                  IdempotencyConfig.builder()
                      .lease(LEASE)
                      // The takeover worker starts while the dead worker's lease may still run:
                      // the engine polls the claim until the lease expires and then takes the
                      // record over, instead of answering in-flight at once.
                      .inFlightPolicy(
                          InFlightPolicy.waitUpTo(Duration.ofSeconds(20), Duration.ofMillis(100)))
                      .build())
              .build();
      // the connection is made and the store's classes are loaded before a racing worker waits to
      // be released
      store.lookup(id);
      stopHereIf(crashPoint == CrashPoint.BEFORE_CLAIM, crashPoint);
      Outcome outcome;
      try (engine) {
        outcome =
            engine.execute(
                id,
                fingerprint,
                Work.stepped(
                    execution -> {
                      String resumeFrom =
                          execution.resumeFrom().map(RecoveryPoint::name).orElse("-");
                      say(
                          "RUN fence="
                              + execution.fence().value()
                              + " takeover="
                              + execution.isTakeover()
                              + " resumeFrom="
                              + resumeFrom);
                      stopHereIf(crashPoint == CrashPoint.AFTER_CLAIM, crashPoint);

                      boolean charged =
                          execution.resumeFrom().filter(p -> p.name().equals(CHARGED)).isPresent();
                      if (charged && !naive) {
                        // the previous owner's charge committed with this recovery point:
                        // charging
                        // again would charge twice
                        say("CHARGE-SKIPPED resumeFrom=" + resumeFrom);
                      } else {
                        execution.checkpoint(
                            RecoveryPoint.of(CHARGED),
                            Connection.class,
                            tx -> {
                              insertLedgerRow(tx, ledgerTable, id, CHARGED, pid);
                              // the row is written, the transaction open: a kill now must leave
                              // no
                              // charge behind
                              stopHereIf(crashPoint == CrashPoint.DURING_CHARGE, crashPoint);
                              gate.armFor(Thread.currentThread()); // the phase's own commit, not a
                              // heartbeat's
                              return null;
                            });
                        gate.disarm();
                        say("CHARGED");
                      }
                      stopHereIf(crashPoint == CrashPoint.AFTER_CHARGE, crashPoint);

                      return execution.completeWith(
                          Connection.class,
                          tx -> {
                            insertLedgerRow(tx, ledgerTable, id, SHIPPED, pid);
                            stopHereIf(crashPoint == CrashPoint.DURING_COMPLETE, crashPoint);
                            // a charge id of its own per run: a replay that carried another
                            // run's
                            // bytes
                            // would show it
                            String chargeId = UUID.randomUUID().toString();
                            byte[] body =
                                ("{\"order\":\""
                                        + id.key().value()
                                        + "\",\"charge\":\""
                                        + chargeId
                                        + "\",\"worker\":"
                                        + pid
                                        + ",\"amount\":\"42.00 \u20ac\"}")
                                    .getBytes(StandardCharsets.UTF_8);
                            Map<String, List<String>> headers = new LinkedHashMap<>();
                            headers.put("Content-Type", List.of("application/json"));
                            headers.put("Charge-Id", List.of(chargeId));
                            return StoredResponse.of(201, headers, body);
                          });
                    }));
      }
      if (outcome instanceof Outcome.Executed executed) {
        say("RESPONSE " + describe(executed.response()));
      }
      // the completion is committed and the engine has returned; the response never reaches the
      // client
      stopHereIf(crashPoint == CrashPoint.AFTER_COMPLETE, crashPoint);
      say("OUTCOME " + describe(outcome));
    } catch (Exception e) {
      say(
          "FAILED "
              + e.getClass().getName()
              + ": "
              + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      System.err.println("CrashWorker failed:");
      e.printStackTrace();
      System.err.flush();
      OUT.flush();
      Runtime.getRuntime().halt(2);
    }
    OUT.flush();
    // halt, not exit: the pool and the engine are closed, and no shutdown hook has anything left to
    // do
    Runtime.getRuntime().halt(0);
  }

  /**
   * Wraps the pool so that the first {@code commit()} on the armed thread stops at the crash point
   * instead of committing. Everything else goes straight to the pool's connection.
   */
  private static final class CommitGate {
    private final CrashPoint point;
    private volatile Thread armed;

    CommitGate(CrashPoint point) {
      this.point = point;
    }

    void armFor(Thread thread) {
      if (point != null) {
        armed = thread;
      }
    }

    void disarm() {
      armed = null;
    }

    DataSource wrap(DataSource pool) {
      return proxy(
          DataSource.class,
          pool,
          (target, method, args) -> {
            Object result = invoke(method, target, args);
            return method.getName().equals("getConnection")
                ? proxy(
                    Connection.class,
                    (Connection) result,
                    (c, m, a) -> {
                      if (m.getName().equals("commit") && armed == Thread.currentThread()) {
                        stopHereIf(true, point);
                      }
                      return invoke(m, c, a);
                    })
                : result;
          });
    }

    @FunctionalInterface
    private interface Handler<T> {
      Object handle(T target, Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T target, Handler<T> handler) {
      return type.cast(
          Proxy.newProxyInstance(
              CrashWorker.class.getClassLoader(),
              new Class<?>[] {type},
              (p, method, args) -> handler.handle(target, method, args)));
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e
            .getCause(); // the driver's SQLException, unchanged, so the store maps it as it would
      }
    }
  }

  /**
   * If the test JVM dies (killed, or its fork timed out), a worker blocked for its kill must not
   * outlive it: halts this JVM with exit code 4 then.
   */
  static void haltWithTheTestJvm() {
    ProcessHandle.current()
        .parent()
        .ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
  }

  /** A pool of {@code size} connections to the database the environment names. */
  static HikariDataSource poolFromEnvironment(int size) {
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(env("CRASH_JDBC_URL"));
    pool.setUsername(env("CRASH_JDBC_USER"));
    pool.setPassword(System.getenv().getOrDefault("CRASH_JDBC_PASSWORD", ""));
    pool.setMaximumPoolSize(size);
    pool.setMinimumIdle(0);
    pool.setConnectionTimeout(10_000);
    pool.setPoolName("crash-worker-" + ProcessHandle.current().pid());
    return new HikariDataSource(pool);
  }

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null) {
      System.err.println("environment variable " + name + " is not set");
      Runtime.getRuntime().halt(64);
    }
    return value;
  }

  private static void insertLedgerRow(
      Connection tx, String ledgerTable, RecordId id, String step, long pid) throws SQLException {
    insertLedgerRow(tx, ledgerTable, id.key().value(), step, pid);
  }

  /** Writes one row of the ledger on {@code tx}: {@code step} of the request {@code key}. */
  static void insertLedgerRow(Connection tx, String ledgerTable, String key, String step, long pid)
      throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement(
            "INSERT INTO " + ledgerTable + " (record_key, step, worker_pid) VALUES (?, ?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, step);
      ps.setLong(3, pid);
      ps.executeUpdate();
    }
  }

  /**
   * Prints the marker and blocks until the kill, or until the file {@code CRASH_RELEASE_FILE} names
   * appears (the paused-worker test lets it go on that way after {@code SIGCONT}). A worker nobody
   * kills or releases halts after {@link #MAX_BLOCK}.
   */
  private static void stopHereIf(boolean here, CrashPoint point) throws InterruptedException {
    if (here) {
      stopHere(point.arg);
    }
  }

  /**
   * Prints {@code READY <point>} and blocks until the kill or the release, as {@link #stopHereIf}
   * describes.
   */
  static void stopHere(String point) throws InterruptedException {
    say("READY " + point);
    String release = System.getenv("CRASH_RELEASE_FILE");
    long deadline = System.nanoTime() + MAX_BLOCK.toNanos();
    while (System.nanoTime() < deadline) {
      if (release != null && Files.exists(Path.of(release))) {
        say("RELEASED " + point);
        return;
      }
      TimeUnit.MILLISECONDS.sleep(
          1); // short: racing workers released together must start within a millisecond
    }
    System.err.println(
        "CrashWorker: blocked at " + point + " for " + MAX_BLOCK + " and nobody killed it");
    System.err.flush();
    Runtime.getRuntime().halt(3);
  }

  /** Prints {@code line} on stdout, for the test to read, and flushes it. */
  static void say(String line) {
    OUT.println(line);
    OUT.flush();
  }

  static String describe(Outcome outcome) {
    if (outcome instanceof Outcome.Executed e) {
      return "Executed resumed="
          + e.resumed()
          + " stored="
          + e.stored()
          + " fence="
          + e.fence().value()
          + " "
          + describe(e.response());
    }
    if (outcome instanceof Outcome.Replayed r) {
      return "Replayed " + describe(r.response());
    }
    if (outcome instanceof Outcome.InFlightConflict c) {
      return "InFlightConflict retryAfter=" + c.retryAfter();
    }
    if (outcome instanceof Outcome.Mismatch m) {
      return "Mismatch existingState=" + m.existingState();
    }
    return "StoreUnavailable " + ((Outcome.StoreUnavailable) outcome).cause();
  }

  /**
   * Status, headers (in their stored order, which a replay keeps) and body, the body in base64 so
   * that every byte of it survives the line.
   */
  static String describe(StoredResponse response) {
    return "status="
        + response.status()
        + " headers="
        + response.headers().toString().replace(' ', '_')
        + " body="
        + Base64.getEncoder().encodeToString(response.body());
  }
}
