package dev.idempotency.benchmarks;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.store.jdbc.Dialect;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * A single-step write request (one business {@code INSERT}) in every shape, on one pool of one
 * server, in alternating rounds, at several thread counts: the bare request, the keyed floor, the
 * peer-shaped request ({@link KeyedShapes}), each of the library's modes (one transaction, claiming
 * first and optimistic, two commits with {@code completeWith}, plain stepped work), a replay
 * through the library, a replay through the optimistic one transaction (whose work runs and rolls
 * back), a peer-shaped replay and a primary-key read; and a payment transaction of four statements
 * ({@link PaymentShapes}) bare, at its keyed floor and through the library's one transaction, both
 * ways. Per request it counts round trips and commits ({@link CountingDataSource}), and on
 * PostgreSQL the write-ahead log ({@code pg_current_wal_lsn()}) and the transaction ids assigned (a
 * transaction that writes takes one, so they count the commits the server flushes). Every round
 * runs each kind once, for a fixed time, in an order that shifts by one kind each round, so that a
 * drift of the machine spreads over all kinds; the figures are medians over rounds. Afterwards it
 * checks that every key committed one business row.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.idempotency.benchmarks.DurableSingleStep
 * POSTGRESQL_DURABLE 1,8 <rounds> <ms per kind and round> out.md} ({@code
 * benchmarks/durable-single-step.sh} runs it on both durable servers).
 */
public final class DurableSingleStep {
  /** Completed keys each thread replays, so that no two threads read the same record at once. */
  private static final int REPLAY_KEYS_PER_THREAD = 32;

  private final OrdersDatabase db;
  private final CountingDataSource counting;
  private final IdempotencyEngine engine;

  /** An engine over a second store of the same table whose one transaction is optimistic. */
  private final IdempotencyEngine optimisticEngine;

  private final KeyedShapes shapes;
  private final PaymentShapes payments;
  private final boolean postgres;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  /** Fresh keys issued per kind, by ordinal: the sequence their keys are numbered from. */
  private final AtomicLong[] issued = new AtomicLong[Kind.values().length];

  private int replayThreads;

  /** One request kind; {@code floor} and {@code peer} are what its cost is divided by. */
  enum Kind {
    BARE("bare: the business INSERT, one commit", "bare", false),
    FLOOR("keyed floor: bare + one INSERT of a complete record (primary key only)", "floor", false),
    PEER("peer-shaped fresh key (plain SQL, idempotence4j 1.7.2's statements)", "peer", false),
    ONE_TRANSACTION("library, one transaction (Work.inOneTransaction)", "onetx", false),
    OPTIMISTIC(
        "library, one transaction, optimistic (optimisticOneTransaction)", "optimistic", false),
    OPTIMISTIC_SQL(
        "the optimistic one transaction's statements as plain SQL (no library)", "optsql", false),
    TWO_COMMITS("library, two commits (Work.stepped + completeWith)", "twocommits", false),
    STEPPED("library, plain stepped (business write on its own connection)", "stepped", false),
    REPLAY("library, replay of a completed key", "replay", true),
    OPTIMISTIC_REPLAY(
        "library, replay through the optimistic one transaction (its INSERT runs, rolls back)",
        "optreplay",
        true),
    PEER_REPLAY("peer-shaped replay (plain SQL)", "peerreplay", true),
    PK_READ("primary-key SELECT of the same record", "pkread", true),
    PAY_BARE("payment, bare: lock, INSERT, UPDATE, outbox INSERT, one commit", "paybare", false),
    PAY_FLOOR("payment, keyed floor: bare + one INSERT of a complete record", "payfloor", false),
    PAY_ONE_TRANSACTION("payment, library, one transaction", "payonetx", false),
    PAY_OPTIMISTIC("payment, library, one transaction, optimistic", "payoptimistic", false);

    final String label;
    final String tag;
    final boolean replay;

    Kind(String label, String tag, boolean replay) {
      this.label = label;
      this.tag = tag;
      this.replay = replay;
    }

    boolean payment() {
      return tag.startsWith("pay");
    }

    Kind floor() {
      return payment() ? PAY_FLOOR : replay ? PK_READ : FLOOR;
    }

    /** The peer-shaped request of the same kind; the payment has none. */
    Kind peer() {
      return payment() ? this : replay ? PEER_REPLAY : PEER;
    }
  }

  /** One kind's block in one round. */
  record Block(
      long requests,
      double micros,
      CountingDataSource.Counts counts,
      long walBytes,
      long transactionIds) {
    double perRequest(long total) {
      return (double) total / requests;
    }
  }

  private DurableSingleStep(OrdersServer server) throws SQLException {
    db = OrdersDatabase.counted(server);
    counting = db.counts();
    engine = IdempotencyEngine.builder(db.store).build();
    optimisticEngine =
        IdempotencyEngine.builder(
                JdbcKeyStore.builder(db.source)
                    .tableName(OrdersDatabase.RECORDS)
                    .optimisticOneTransaction(true)
                    .build())
            .build();
    shapes = new KeyedShapes(db);
    payments = new PaymentShapes(db);
    postgres = server.dialect == Dialect.POSTGRESQL;
    Arrays.setAll(issued, i -> new AtomicLong());
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println(
          "usage: DurableSingleStep <POSTGRESQL_DURABLE|MARIADB_DURABLE> <threads, e.g. 1,8>"
              + " <rounds> <ms per kind and round> <out.md>");
      System.exit(2);
    }
    OrdersServer server = OrdersServer.valueOf(args[0]);
    int[] threadCounts =
        Pattern.compile(",").splitAsStream(args[1]).mapToInt(Integer::parseInt).toArray();
    int rounds = Integer.parseInt(args[2]);
    long millis = Long.parseLong(args[3]);
    DurableSingleStep bench = new DurableSingleStep(server);
    StringBuilder out = new StringBuilder();
    out.append("# ")
        .append(server)
        .append(": a single-step write request in every shape\n\n")
        .append(rounds)
        .append(" rounds of ")
        .append(millis)
        .append(" ms per kind, after one warm-up round; medians over rounds. µs: mean time per")
        .append(" request within a block. cost × floor, × peer-shaped: the median over rounds of")
        .append(" the ratio of µs within the round (a replay's floor is the primary-key read,")
        .append(" its peer the peer-shaped replay).\n\n");
    try (bench.db;
        bench.engine;
        bench.optimisticEngine) {
      bench.prepareReplays(Arrays.stream(threadCounts).max().orElse(1));
      for (int threads : threadCounts) {
        out.append(bench.measure(threads, rounds, millis));
      }
      out.append(bench.check());
    }
    Path path = Path.of(args[4]);
    Path parent = path.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(path, out.toString(), StandardCharsets.UTF_8);
    System.out.print(out);
  }

  private String replayKey(Kind kind, int thread, long seq) {
    return run + "-" + kind.tag + "-" + thread + "-" + (seq % REPLAY_KEYS_PER_THREAD);
  }

  /** Completes the keys the replay kinds replay: through the library, and peer-shaped. */
  private void prepareReplays(int threads) throws Exception {
    replayThreads = threads;
    for (int t = 0; t < threads; t++) {
      for (int j = 0; j < REPLAY_KEYS_PER_THREAD; j++) {
        db.oneTransactionRequest(engine, replayKey(Kind.REPLAY, t, j));
        db.oneTransactionRequest(engine, replayKey(Kind.OPTIMISTIC_REPLAY, t, j));
        shapes.peerFresh(replayKey(Kind.PEER_REPLAY, t, j));
      }
    }
  }

  private void request(Kind kind, int thread, long seq) throws Exception {
    String key = run + "-" + kind.tag + "-" + seq;
    switch (kind) {
      case BARE -> db.bareRequest(key);
      case FLOOR -> shapes.floorRequest(key);
      case PEER -> shapes.peerFresh(key);
      case ONE_TRANSACTION -> db.oneTransactionRequest(engine, key);
      case OPTIMISTIC -> db.oneTransactionRequest(optimisticEngine, key);
      case OPTIMISTIC_SQL -> shapes.optimisticAsSql(key);
      case TWO_COMMITS -> db.twoCommitRequest(engine, key);
      case STEPPED -> db.steppedRequest(engine, key);
      case REPLAY -> db.replayRequest(engine, replayKey(kind, thread, seq));
      case OPTIMISTIC_REPLAY ->
          db.oneTransactionReplay(optimisticEngine, replayKey(kind, thread, seq));
      case PEER_REPLAY -> shapes.peerReplay(replayKey(kind, thread, seq));
      case PK_READ -> shapes.primaryKeyRead(replayKey(Kind.REPLAY, thread, seq));
      case PAY_BARE -> payments.bare(key, thread);
      case PAY_FLOOR -> payments.floor(key, thread);
      case PAY_ONE_TRANSACTION -> payments.library(engine, key, thread);
      case PAY_OPTIMISTIC -> payments.library(optimisticEngine, key, thread);
    }
  }

  private String measure(int threads, int rounds, long millis) throws Exception {
    Kind[] kinds = Kind.values();
    List<List<Block>> blocks = new ArrayList<>();
    for (int i = 0; i < kinds.length; i++) {
      blocks.add(new ArrayList<>());
    }
    List<String> loads = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      // a checkpoint first, so that every thread count starts with the same full-page writes to
      // come (the durable run grants the right; the test servers' smoke pass does without)
      if (postgres && db.server.durable) {
        sql("CHECKPOINT");
      }
      for (Kind k : kinds) {
        block(pool, threads, k, Math.max(200, millis / 2));
      }
      for (int r = 0; r < rounds; r++) {
        loads.add(loadAverage());
        for (int i = 0; i < kinds.length; i++) {
          Kind k = kinds[(i + r) % kinds.length];
          blocks.get(k.ordinal()).add(block(pool, threads, k, millis));
        }
      }
      loads.add(loadAverage());
    } finally {
      pool.shutdownNow();
    }
    return report(threads, blocks, loads);
  }

  private Block block(ExecutorService pool, int threads, Kind kind, long millis) throws Exception {
    String walBefore = postgres ? query("SELECT pg_current_wal_lsn()::text") : "";
    long xidBefore = postgres ? nextTransactionId() : 0;
    counting.reset();
    LongAdder requests = new LongAdder();
    LongAdder nanos = new LongAdder();
    AtomicLong seq = issued[kind.ordinal()];
    long deadline = System.nanoTime() + millis * 1_000_000;
    List<Future<?>> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      running.add(
          pool.submit(
              () -> {
                long local = 0;
                while (System.nanoTime() < deadline) {
                  long start = System.nanoTime();
                  request(kind, thread, kind.replay ? local++ : seq.getAndIncrement());
                  nanos.add(System.nanoTime() - start);
                  requests.increment();
                }
                return null;
              }));
    }
    for (Future<?> f : running) {
      f.get();
    }
    CountingDataSource.Counts counts = counting.reset();
    long wal =
        postgres
            ? Long.parseLong(
                query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + walBefore + "')::bigint"))
            : 0;
    long xids = postgres ? nextTransactionId() - xidBefore : 0;
    long n = requests.sum();
    return new Block(n, nanos.sum() / 1000.0 / n, counts, wal, xids);
  }

  private String report(int threads, List<List<Block>> blocks, List<String> loads) {
    StringBuilder out = new StringBuilder();
    out.append("## ").append(threads).append(threads == 1 ? " thread\n\n" : " threads\n\n");
    out.append("load average (1 min) at each round's start and at the end: ")
        .append(String.join(", ", loads))
        .append("\n\n");
    out.append(
        "| request | µs per request | round trips | commits | WAL bytes | cost × floor"
            + " | cost × peer-shaped | setAutoCommit | transaction ids | requests per round"
            + " | µs in each round |\n");
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (Kind k : Kind.values()) {
      List<Block> mine = blocks.get(k.ordinal());
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.2f | %.2f | %s | %.2f | %s | %.2f | %s | %s | %s |%n",
              k.label,
              median(mine, Block::micros),
              median(mine, b -> b.perRequest(b.counts().roundTrips())),
              median(mine, b -> b.perRequest(b.counts().commits())),
              postgres
                  ? String.format(
                      Locale.ROOT, "%.0f", median(mine, b -> b.perRequest(b.walBytes())))
                  : "—",
              ratio(mine, blocks.get(k.floor().ordinal())),
              k.payment()
                  ? "—"
                  : String.format(Locale.ROOT, "%.2f", ratio(mine, blocks.get(k.peer().ordinal()))),
              median(mine, b -> b.perRequest(b.counts().autoCommitSwitches())),
              postgres
                  ? String.format(
                      Locale.ROOT, "%.2f", median(mine, b -> b.perRequest(b.transactionIds())))
                  : "—",
              join(mine, b -> b.requests()),
              join(mine, b -> Math.round(b.micros()))));
    }
    return out.append('\n').toString();
  }

  /** The median over rounds of this kind's µs divided by the other's in the same round. */
  private static double ratio(List<Block> mine, List<Block> other) {
    double[] r = new double[mine.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = mine.get(i).micros() / other.get(i).micros();
    }
    return median(r);
  }

  private static double median(List<Block> blocks, ToDoubleFunction<Block> f) {
    return median(blocks.stream().mapToDouble(f).toArray());
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int m = v.length / 2;
    return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  private static String join(List<Block> blocks, ToDoubleFunction<Block> f) {
    return String.join(
        ", ",
        blocks.stream().map(b -> String.format(Locale.ROOT, "%.0f", f.applyAsDouble(b))).toList());
  }

  /**
   * Every key committed one business row, and every keyed request left its key complete: counted in
   * the database against the requests issued.
   */
  private String check() throws SQLException {
    StringBuilder out = new StringBuilder("## One row per key\n\n");
    out.append(
        "| request | keys issued | business rows | distinct keys among them | keys complete |\n");
    out.append("|---|---:|---:|---:|---:|\n");
    boolean ok = true;
    for (Kind k : Kind.values()) {
      if (k == Kind.PK_READ) {
        continue;
      }
      String prefix = run + "-" + k.tag + "-%";
      long expected =
          k.replay ? (long) REPLAY_KEYS_PER_THREAD * replayThreads : issued[k.ordinal()].get();
      String table = k.payment() ? PaymentShapes.PAYMENTS : OrdersDatabase.ORDERS;
      String ref = k.payment() ? "payment_ref" : "order_ref";
      long rows = count("SELECT COUNT(*) FROM " + table + " WHERE " + ref + " LIKE ?", prefix);
      long distinct =
          count(
              "SELECT COUNT(DISTINCT " + ref + ") FROM " + table + " WHERE " + ref + " LIKE ?",
              prefix);
      long complete =
          switch (k) {
            case BARE, PAY_BARE -> expected;
            case FLOOR, PAY_FLOOR ->
                count(
                    "SELECT COUNT(*) FROM " + KeyedShapes.FLOOR + " WHERE idem_key LIKE ?", prefix);
            case PEER, PEER_REPLAY ->
                count(
                    "SELECT COUNT(*) FROM "
                        + KeyedShapes.PEER
                        + " WHERE action_key LIKE ? AND completed_at IS NOT NULL",
                    prefix);
            default ->
                count(
                    "SELECT COUNT(*) FROM "
                        + OrdersDatabase.RECORDS
                        + " WHERE idem_key LIKE ? AND state = 'C'",
                    prefix);
          };
      ok &= rows == expected && distinct == expected && complete == expected;
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %d | %d |%n",
              k.label,
              expected,
              rows,
              distinct,
              complete));
    }
    out.append('\n')
        .append(ok ? "Every key committed one row.\n" : "**A KEY DID NOT COMMIT ONE ROW.**\n");
    if (!ok) {
      System.out.print(out);
      throw new IllegalStateException("a key did not commit one row");
    }
    return out.toString();
  }

  private static String loadAverage() throws IOException {
    String line = Files.readString(Path.of("/proc/loadavg"));
    return line.substring(0, line.indexOf(' '));
  }

  /** The next transaction id the server will assign: it moves only for transactions that write. */
  private long nextTransactionId() throws SQLException {
    return Long.parseLong(query("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint"));
  }

  // the measurement's own statements go to the pool, not through the counting wrapper
  private String query(String sql) throws SQLException {
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private void sql(String sql) throws SQLException {
    try (Connection c = db.pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private long count(String sql, String prefix) throws SQLException {
    try (Connection c = db.pool.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, prefix);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
