package dev.idempotency.benchmarks;

import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Eight callers per key at once on a durable server: each key is sent by {@value #CALLERS} callers
 * released together, as a client's retries and a load balancer's duplicates arrive, and the next
 * key starts when all eight have their answer. Per kind: the time per key (all eight answered), and
 * how the eight were answered: run, replayed, or turned away in flight. The library runs with the
 * engine's default ({@code InFlightPolicy.reject()}: a duplicate of a key in flight is answered at
 * once) and with a bounded wait ({@code waitUpTo(2 s, 5 ms)}: it polls until the first caller's
 * answer is stored, then replays it). The peer-shaped caller is plain SQL in idempotence4j 1.7.2's
 * shape ({@link KeyedShapes}): the caller whose insert-if-absent took the key runs the request;
 * every other reads the action and replays it when complete, else is turned away. Kinds alternate
 * within each round, in an order shifted by one per round; afterwards every key must have committed
 * one business row.
 *
 * <p>Where a kind's time goes: per key, the round trips and commits all eight callers sent ({@link
 * CountingDataSource}, on every kind alike), and two latencies from the release: the answer of the
 * caller that ran the request, and how long after it the last of the eight was answered.
 *
 * <p>Run by {@code benchmarks/durable-contended.sh}.
 */
final class DurableContended {
  static final int CALLERS = 8;

  enum Kind {
    PEER("peer-shaped"),
    TWO_COMMITS_REJECT("library, two commits, reject in flight (the default)"),
    TWO_COMMITS_WAIT("library, two commits, wait up to 2 s"),
    ONE_TRANSACTION_REJECT("library, one transaction, reject in flight (the default)"),
    ONE_TRANSACTION_WAIT("library, one transaction, wait up to 2 s");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  enum Answer {
    RAN,
    REPLAYED,
    IN_FLIGHT
  }

  private final OrdersDatabase db;
  private final KeyedShapes shapes;
  private final IdempotencyEngine rejecting;
  private final IdempotencyEngine waiting;
  private final CountingDataSource counting;
  private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
  private long keys;

  private DurableContended(OrdersServer server) throws SQLException {
    db = OrdersDatabase.counted(server);
    counting = db.counts();
    shapes = new KeyedShapes(db);
    rejecting = IdempotencyEngine.builder(db.store).build();
    waiting =
        IdempotencyEngine.builder(db.store)
            .config(
                IdempotencyConfig.builder()
                    .inFlightPolicy(
                        InFlightPolicy.waitUpTo(Duration.ofSeconds(2), Duration.ofMillis(5)))
                    .build())
            .build();
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println(
          "usage: DurableContended <POSTGRESQL_DURABLE|MARIADB_DURABLE> <rounds> <keys per kind"
              + " and round> <out.md>");
      System.exit(2);
    }
    OrdersServer server = OrdersServer.valueOf(args[0]);
    int rounds = Integer.parseInt(args[1]);
    int keysPerRound = Integer.parseInt(args[2]);
    DurableContended bench = new DurableContended(server);
    Kind[] kinds = Kind.values();
    Map<Kind, List<Double>> micros = new EnumMap<>(Kind.class);
    Map<Kind, Tally> tallies = new EnumMap<>(Kind.class);
    for (Kind k : kinds) {
      micros.put(k, new ArrayList<>());
      tallies.put(k, new Tally());
    }
    try {
      for (Kind k : kinds) { // warm-up round, not counted
        bench.keys(k, keysPerRound / 2, new Tally());
      }
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < kinds.length; i++) {
          Kind k = kinds[(i + r) % kinds.length];
          bench.counting.reset();
          long start = System.nanoTime();
          bench.keys(k, keysPerRound, tallies.get(k));
          micros.get(k).add((System.nanoTime() - start) / 1_000.0 / keysPerRound);
          tallies.get(k).add(bench.counting.reset());
        }
      }
      bench.checkOneRowPerKey();
      Files.writeString(Path.of(args[3]), report(server, rounds, keysPerRound, micros, tallies));
    } finally {
      bench.callers.shutdownNow();
      bench.rejecting.close();
      bench.waiting.close();
      bench.db.close();
    }
  }

  /** One caller's answer and when it came, in nanoseconds after the eight were released. */
  record Answered(Answer answer, long nanos) {}

  /** What one kind's keys sent and how they were answered, over every counted round. */
  static final class Tally {
    final Map<Answer, Long> answers = new EnumMap<>(Answer.class);
    final List<Long> runnerNanos = new ArrayList<>();
    final List<Long> lastAfterRunnerNanos = new ArrayList<>();
    long keys;
    long roundTrips;
    long commits;

    void key(List<Answered> eight) {
      keys++;
      long last = 0;
      long runner = -1;
      for (Answered a : eight) {
        answers.merge(a.answer(), 1L, Long::sum);
        last = Math.max(last, a.nanos());
        if (a.answer() == Answer.RAN) {
          runner = a.nanos();
        }
      }
      if (runner >= 0) {
        runnerNanos.add(runner);
        lastAfterRunnerNanos.add(last - runner);
      }
    }

    void add(CountingDataSource.Counts counts) {
      roundTrips += counts.roundTrips();
      commits += counts.commits();
    }
  }

  private void keys(Kind kind, int count, Tally tally) throws Exception {
    for (int i = 0; i < count; i++) {
      String key = kind.name().toLowerCase(Locale.ROOT) + "-" + (keys++);
      CyclicBarrier together = new CyclicBarrier(CALLERS);
      List<Future<Answered>> calls = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        Callable<Answered> call =
            () -> {
              together.await(10, TimeUnit.SECONDS);
              long released = System.nanoTime();
              Answer answer = call(kind, key);
              return new Answered(answer, System.nanoTime() - released);
            };
        calls.add(callers.submit(call));
      }
      List<Answered> eight = new ArrayList<>();
      for (Future<Answered> f : calls) {
        eight.add(f.get(30, TimeUnit.SECONDS));
      }
      tally.key(eight);
    }
  }

  private Answer call(Kind kind, String key) throws Exception {
    return switch (kind) {
      case PEER -> peer(key);
      case TWO_COMMITS_REJECT ->
          answer(rejecting.execute(id(key), OrdersDatabase.FINGERPRINT, twoCommits(key)));
      case TWO_COMMITS_WAIT ->
          answer(waiting.execute(id(key), OrdersDatabase.FINGERPRINT, twoCommits(key)));
      case ONE_TRANSACTION_REJECT ->
          answer(rejecting.execute(id(key), OrdersDatabase.FINGERPRINT, oneTransaction(key)));
      case ONE_TRANSACTION_WAIT ->
          answer(waiting.execute(id(key), OrdersDatabase.FINGERPRINT, oneTransaction(key)));
    };
  }

  private static RecordId id(String key) {
    return RecordId.of(OrdersDatabase.SCOPE, key);
  }

  private static Work twoCommits(String key) {
    return Work.stepped(
        execution ->
            execution.completeWith(
                Connection.class,
                c -> {
                  OrdersDatabase.insertOrder(c, key);
                  return OrdersDatabase.CREATED;
                }));
  }

  private static Work oneTransaction(String key) {
    return Work.inOneTransaction(
        Connection.class,
        (Connection c) -> {
          OrdersDatabase.insertOrder(c, key);
          return OrdersDatabase.CREATED;
        });
  }

  private static Answer answer(Outcome outcome) {
    if (outcome instanceof Outcome.Executed) {
      return Answer.RAN;
    }
    if (outcome instanceof Outcome.Replayed) {
      return Answer.REPLAYED;
    }
    if (outcome instanceof Outcome.InFlightConflict) {
      return Answer.IN_FLIGHT;
    }
    throw new IllegalStateException("unexpected answer to a duplicate: " + outcome);
  }

  /** Peer-shaped: the first insert runs the request; the others replay it or are turned away. */
  private Answer peer(String key) throws SQLException {
    return switch (shapes.peerClaim(key)) {
      case TAKEN -> {
        shapes.peerComplete(key);
        yield Answer.RAN;
      }
      case COMPLETE -> Answer.REPLAYED;
      case PENDING -> Answer.IN_FLIGHT;
    };
  }

  private void checkOneRowPerKey() throws SQLException {
    try (Connection c = db.pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT COUNT(*), COUNT(DISTINCT order_ref) FROM " + OrdersDatabase.ORDERS);
        ResultSet rs = s.executeQuery()) {
      rs.next();
      if (rs.getLong(1) != rs.getLong(2) || rs.getLong(2) != keys) {
        throw new IllegalStateException(
            rs.getLong(1) + " business rows for " + rs.getLong(2) + " keys of " + keys);
      }
    }
  }

  private static String report(
      OrdersServer server,
      int rounds,
      int keysPerRound,
      Map<Kind, List<Double>> micros,
      Map<Kind, Tally> tallies) {
    StringBuilder out = new StringBuilder();
    out.append("# ")
        .append(server)
        .append(": ")
        .append(CALLERS)
        .append(" callers per key at once\n\n")
        .append(rounds)
        .append(" rounds of ")
        .append(keysPerRound)
        .append(
            " keys per kind (after a warm-up round of half as many), kinds alternating; every key")
        .append(" committed one business row.\n\n")
        .append(
            "| kind | µs per key (median of rounds) | × peer-shaped | ran | replayed | in flight |")
        .append(" in-flight share | round trips per key | commits per key | runner answered, µs |")
        .append(
            " last answer after it, µs |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double peer = median(micros.get(Kind.PEER));
    for (Kind k : Kind.values()) {
      Tally t = tallies.get(k);
      Map<Answer, Long> a = t.answers;
      long all = a.values().stream().mapToLong(Long::longValue).sum();
      long inFlight = a.getOrDefault(Answer.IN_FLIGHT, 0L);
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %.2f | %d | %d | %d | %.0f %% | %.1f | %.1f | %,.0f | %,.0f |%n",
              k.label,
              median(micros.get(k)),
              median(micros.get(k)) / peer,
              a.getOrDefault(Answer.RAN, 0L),
              a.getOrDefault(Answer.REPLAYED, 0L),
              inFlight,
              100.0 * inFlight / all,
              (double) t.roundTrips / t.keys,
              (double) t.commits / t.keys,
              medianNanos(t.runnerNanos) / 1_000.0,
              medianNanos(t.lastAfterRunnerNanos) / 1_000.0));
    }
    out.append("\nµs per key, every round:\n\n");
    for (Kind k : Kind.values()) {
      out.append("- ").append(k.label).append(": ");
      for (double m : micros.get(k)) {
        out.append(String.format(Locale.ROOT, "%,.0f ", m));
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static double medianNanos(List<Long> values) {
    List<Double> asDouble = new ArrayList<>();
    values.forEach(v -> asDouble.add((double) v));
    return asDouble.isEmpty() ? Double.NaN : median(asDouble);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
