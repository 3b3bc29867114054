package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.testing.CompletionOutageGate;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link CompletionOutageGate} over {@link JdbcKeyStore}: {@value #KEYS} keys owned by one engine,
 * their duplicates sent through two more (three application instances, each with its own pool and
 * store), the store's table created before and dropped after. The settings are those {@code
 * docs/stores-jdbc.md} recommends for outages ("Settings for outages"): a short statement timeout,
 * a short wait for a pooled connection, the drivers' socket timeouts (in the URL the caller gives),
 * and a heartbeat interval of an eighth of the lease.
 */
final class JdbcOutageGate {
  static final int KEYS = 20;

  /** Long enough for {@link #OUTAGE} plus a call stuck until the socket timeout. */
  static final Duration LEASE = Duration.ofSeconds(8);

  /** Half the lease. */
  static final Duration OUTAGE = LEASE.dividedBy(2);

  static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);

  /** HikariCP's wait for a connection (its default is 30 s, longer than the lease). */
  static final long CONNECTION_TIMEOUT_MS = 1_000;

  private static final int OWNER_CLAIM_RETRIES = 50;

  private static final Fingerprint FP =
      Fingerprint.of("POST /charges".getBytes(StandardCharsets.UTF_8));

  /** Opens one application instance's pool. */
  @FunctionalInterface
  interface Pools {
    HikariDataSource open(String poolName);
  }

  private JdbcOutageGate() {}

  /**
   * A pool as an application instance should have it for outages: {@link #CONNECTION_TIMEOUT_MS},
   * and a validation of a connection idle for a while bounded to half a second.
   */
  static HikariDataSource pool(String url, String user, String password, String poolName) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setPoolName(poolName);
    config.setMaximumPoolSize(10);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
    config.setValidationTimeout(500);
    return new HikariDataSource(config);
  }

  /**
   * Runs the gate with {@link #LEASE} and {@link #OUTAGE}.
   *
   * @param name names the run (table, keys, the printed figures)
   */
  static CompletionOutageGate.Result run(String name, Pools pools, CompletionOutageGate.Fault fault)
      throws Exception {
    return run(name, pools, fault, LEASE, OUTAGE);
  }

  /**
   * Runs the gate and prints its figures.
   *
   * @param lease the engines' lease; the heartbeat renews every eighth of it
   * @param outage how long {@code fault} lasts
   */
  static CompletionOutageGate.Result run(
      String name, Pools pools, CompletionOutageGate.Fault fault, Duration lease, Duration outage)
      throws Exception {
    String table = "gate_" + name + "_" + Long.toString(ProcessHandle.current().pid(), 36);
    try (HikariDataSource admin = pools.open("gate-admin")) {
      AbstractJdbcKeyStoreTest.dropTables(admin, table);
      JdbcKeyStore.builder(admin).tableName(table).createSchemaIfMissing().build();
    }
    Map<String, LongAdder> events = new ConcurrentHashMap<>();
    Map<String, String> owners = new ConcurrentSkipListMap<>();
    List<HikariDataSource> opened = new ArrayList<>();
    List<IdempotencyEngine> engines = new ArrayList<>();
    try {
      for (String instance : List.of("owner", "second", "third")) {
        HikariDataSource pool = pools.open("gate-" + instance);
        opened.add(pool);
        JdbcKeyStore store =
            JdbcKeyStore.builder(pool).tableName(table).statementTimeout(STATEMENT_TIMEOUT).build();
        engines.add(
            IdempotencyEngine.builder(store)
                .config(
                    IdempotencyConfig.builder()
                        .lease(lease)
                        .heartbeatInterval(lease.dividedBy(8))
                        .listener(
                            e ->
                                events
                                    .computeIfAbsent(
                                        e.getClass().getSimpleName(), k -> new LongAdder())
                                    .increment())
                        .build())
                .build());
      }
      CompletionOutageGate gate =
          new CompletionOutageGate(
              KEYS,
              owner(engines.get(0), owners),
              List.of(caller(engines.get(1)), caller(engines.get(2))),
              fault,
              outage,
              lease.plusSeconds(1));
      CompletionOutageGate.Result result;
      try {
        result = gate.run(name, lease.plus(outage).plusSeconds(40));
      } catch (Exception e) {
        System.out.printf(
            "[outage gate] %s did not finish; the owners' answers %s%n", name, owners);
        throw e;
      }
      Map<String, Long> counted = new TreeMap<>();
      events.forEach((k, v) -> counted.put(k, v.sum()));
      System.out.printf(
          "[outage gate] %s: %s (lease %d ms, outage %d ms); the owners' answers %s; engine"
              + " events %s%n",
          name, result, lease.toMillis(), outage.toMillis(), owners, counted);
      return result;
    } finally {
      for (IdempotencyEngine engine : engines) {
        engine.close();
      }
      opened.forEach(HikariDataSource::close);
      try (HikariDataSource admin = pools.open("gate-admin")) {
        AbstractJdbcKeyStoreTest.dropTables(admin, table);
      }
    }
  }

  /**
   * Runs the gate over {@code server}, frozen with {@code kill -STOP} for the outage and thawed
   * with {@code kill -CONT}.
   *
   * @param driverTimeouts the URL parameters that bound the driver's waits
   */
  static CompletionOutageGate.Result frozen(
      String name, OwnDatabaseServer server, String driverTimeouts, Duration lease, Duration outage)
      throws Exception {
    return run(
        name,
        poolName -> pool(server.url(driverTimeouts), server.user(), "", poolName),
        fault(server::freeze, server::thaw),
        lease,
        outage);
  }

  /** The gate holds: every key's work ran once, while duplicates kept coming. */
  static void assertEveryKeyRanOnce(CompletionOutageGate.Result result) {
    assertThat(result.keysRunTwice()).as("keys run twice in %s", result).isZero();
    assertThat(result.keysNeverRun()).as("keys never run in %s", result).isZero();
    assertThat(result.duplicatesSent()).as("duplicates sent").isGreaterThan(KEYS);
  }

  /** One step of a fault. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /** A fault of two steps. */
  static CompletionOutageGate.Fault fault(Step begin, Step end) {
    return new CompletionOutageGate.Fault() {
      @Override
      public void begin() throws Exception {
        begin.run();
      }

      @Override
      public void end() throws Exception {
        end.run();
      }
    };
  }

  /** Kills the store's connections, once; returns how many it killed. */
  @FunctionalInterface
  interface KillRound {
    int kill(Connection admin) throws SQLException;
  }

  /**
   * A fault that kills the store's connections again and again through the outage, every 20 ms,
   * from a connection of its own (opened again when a round fails); {@link #killed} counts them.
   */
  static final class ConnectionKiller implements CompletionOutageGate.Fault {
    private final Callable<Connection> admin;
    private final KillRound round;
    private final AtomicInteger killed = new AtomicInteger();
    private final AtomicInteger rounds = new AtomicInteger();
    private final CountDownLatch stop = new CountDownLatch(1);
    private Thread thread;

    ConnectionKiller(Callable<Connection> admin, KillRound round) {
      this.admin = admin;
      this.round = round;
    }

    @Override
    public void begin() throws Exception {
      Connection first = admin.call();
      killed.addAndGet(round.kill(first)); // the first round before the works return
      rounds.incrementAndGet();
      Thread t =
          new Thread(
              () -> {
                Connection c = first;
                try {
                  while (!stop.await(20, TimeUnit.MILLISECONDS)) {
                    try {
                      killed.addAndGet(round.kill(c));
                      rounds.incrementAndGet();
                    } catch (SQLException e) {
                      c.close();
                      c = admin.call();
                    }
                  }
                  c.close();
                } catch (Exception e) {
                  throw new IllegalStateException("the connection killer failed", e);
                }
              },
              "gate-connection-killer");
      t.setDaemon(true);
      thread = t;
      t.start();
    }

    @Override
    public void end() throws Exception {
      stop.countDown();
      Thread t = thread;
      if (t != null) {
        t.join(TimeUnit.SECONDS.toMillis(10));
      }
      System.out.printf(
          "[outage gate] killed %d connections in %d rounds%n", killed.get(), rounds.get());
    }

    int killed() {
      return killed.get();
    }
  }

  private static CompletionOutageGate.Caller caller(IdempotencyEngine engine) {
    return (id, work) -> execute(engine, id, work);
  }

  /**
   * The owners' caller: what each owner's request answered (its outcome, or the exception it threw
   * with the first message of each kind) is tallied in {@code answers}. A claim the store could not
   * make (the engine fails closed, the work does not run) is sent again, as a client would, for up
   * to {@link #OWNER_CLAIM_RETRIES} times: a pool that is slow to open its first connections (a
   * cold JVM on a loaded machine) must not end the run before the fault begins.
   */
  private static CompletionOutageGate.Caller owner(
      IdempotencyEngine engine, Map<String, String> answers) {
    return (id, work) -> {
      try {
        Outcome outcome = execute(engine, id, work);
        for (int i = 0;
            i < OWNER_CLAIM_RETRIES && outcome instanceof Outcome.StoreUnavailable;
            i++) {
          tally(answers, "claim sent again", "");
          outcome = execute(engine, id, work);
        }
        tally(
            answers,
            outcome instanceof Outcome.Executed executed
                ? "Executed(stored=" + executed.stored() + ")"
                : outcome.getClass().getSimpleName(),
            outcome instanceof Outcome.StoreUnavailable unavailable
                ? String.valueOf(unavailable.cause().getMessage())
                : "");
      } catch (Exception e) {
        tally(answers, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
        throw e;
      }
    };
  }

  /** Counts one answer of a kind, keeping the first message of each. */
  private static void tally(Map<String, String> answers, String kind, String message) {
    answers.merge(
        kind,
        message.isEmpty() ? "1" : "1 (" + message + ")",
        (old, one) -> {
          int space = old.indexOf(' ');
          int n = Integer.parseInt(space < 0 ? old : old.substring(0, space));
          return (n + 1) + (space < 0 ? "" : old.substring(space));
        });
  }

  private static Outcome execute(IdempotencyEngine engine, RecordId id, Runnable work)
      throws Exception {
    return engine.execute(
        id,
        FP,
        Work.stepped(
            execution -> {
              work.run();
              return StoredResponse.ofUtf8(201, "charged");
            }));
  }
}
