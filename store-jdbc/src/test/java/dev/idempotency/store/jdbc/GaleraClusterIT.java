package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.RecordSnapshot;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link JdbcKeyStore} on a three-node MariaDB Galera cluster ({@link GaleraCluster}), through the
 * MariaDB driver, one HikariCP pool per node: how many keys ran their work twice when the claims of
 * one key reach different nodes at once, and when a node dies mid-run.
 *
 * <p>Galera checks write conflicts between nodes only when a transaction commits (certification):
 * two claims of one key on two nodes both insert the record locally, and the one certified second
 * fails at its commit with a deadlock error (1213, SQLState 40001), or is aborted by the first
 * one's replicated write while it runs. The store runs such a transaction again, which then finds
 * the record the other claim committed; a call whose attempts all meet conflicts answers {@code
 * StoreUnavailableException}, which a client retries with the same key. Each scenario asserts that
 * no key ran its work twice, that every failure a caller met was a {@code
 * StoreUnavailableException} (or, in the one-transaction mode, the work's own statement failing
 * with its connection, which the store passes on unchanged), and that every key ends complete on
 * every live node; it prints the certification conflicts the nodes counted ({@code
 * wsrep_local_cert_failures}, {@code wsrep_local_bf_aborts}).
 *
 * <p>Every connection sets {@code wsrep_sync_wait=7}: a read, update, delete or insert first waits
 * until the node has applied every write the cluster committed before it, so a caller that fails
 * over to another node finds its own claim there.
 *
 * <p>The claims-at-once scenario runs by default (about 22 s with the cluster's start on two busy
 * cores); the node-loss scenario, which kills node 2 and starts it again, is tagged {@code slow}
 * (about 15 s more per mode).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GaleraClusterIT {
  private static final int KEYS = 200;
  private static final int THREADS_PER_NODE = 8;

  /**
   * The driver keeps a node it could not reach off its list for the whole JVM, 60 s by default
   * ({@code deniedListTimeout}): shorter here, so that the pools of a later scenario use the node
   * the previous one killed and started again.
   */
  private static final String PARAMS =
      "connectTimeout=2000&socketTimeout=10000&deniedListTimeout=1000"
          + "&sessionVariables=wsrep_sync_wait=7";

  private static GaleraCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    long start = System.nanoTime();
    cluster = GaleraCluster.start(3);
    System.out.printf(
        "GALERA cluster of %d nodes synced in %.1f s%n",
        cluster.size(), (System.nanoTime() - start) / 1e9);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"two-commits", "one-transaction"})
  @Order(1)
  void claimsOfOneKeyOnEveryNodeAtOnce(String mode) throws Exception {
    Run run = new Run("same-time-" + mode, "one-transaction".equals(mode));
    run.go(0);
    assertThat(run.certificationConflicts)
        .as("certification conflicts: claims of one key met on different nodes")
        .isPositive();
  }

  /**
   * A Galera node would report a duplicate written on another node only at commit, after the
   * optimistic insert succeeded here: the builder refuses the optimistic one transaction there.
   */
  @Test
  @Order(1)
  void theBuilderRefusesOptimisticOneTransactionOnAGaleraNode() {
    try (HikariDataSource pool = pool(1)) {
      assertThatThrownBy(
              () ->
                  JdbcKeyStore.builder(pool)
                      .tableName("galera_optimistic_refused")
                      .createSchemaIfMissing()
                      .optimisticOneTransaction(true)
                      .build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Galera");
    }
  }

  /** The store's failover test in the default run: a node lost under two-commit claims. */
  @Test
  @Order(2)
  void aNodeKilledMidRunWithTwoCommits() throws Exception {
    nodeKilledMidRun("two-commits");
  }

  @Test
  @Order(3)
  @Tag("slow")
  void aNodeKilledMidRunInOneTransaction() throws Exception {
    nodeKilledMidRun("one-transaction");
  }

  private void nodeKilledMidRun(String mode) throws Exception {
    Run run = new Run("node-loss-" + mode, "one-transaction".equals(mode));
    try {
      run.go(2);
    } finally {
      long start = System.nanoTime();
      cluster.restart(2); // the next run finds three nodes again
      System.out.printf("GALERA node 2 rejoined in %.1f s%n", (System.nanoTime() - start) / 1e9);
    }
  }

  private static final class Run {
    final String name;
    final String table;
    final GaleraCaller caller;
    final List<RecordId> ids = new ArrayList<>();
    long certificationConflicts;
    double unavailableSeconds;
    int callsLeftOnKilledNode;
    int sideEffects;
    long keysRunTwice;

    Run(String name, boolean oneTransaction) {
      this.name = name;
      this.table = "idem_" + name.replace('-', '_');
      this.caller = new GaleraCaller(oneTransaction);
      for (int i = 0; i < KEYS; i++) {
        RecordId id = RecordId.of("acct", name + "-" + i);
        ids.add(id);
        caller.workCalls.put(id, new AtomicInteger());
      }
    }

    /**
     * Runs every key with one caller per node, each through the pool of its node; kills node {@code
     * killNode} (1-based; 0: none) with {@code kill -9} a third of the way through.
     */
    void go(int killNode) throws Exception {
      int nodes = cluster.size();
      List<HikariDataSource> pools = new ArrayList<>();
      List<ExecutorService> threads = new ArrayList<>();
      if (killNode > 0) {
        // past the driver's deny list of an earlier kill: the new pools connect to every node
        TimeUnit.MILLISECONDS.sleep(1100);
      }
      long conflictsBefore = conflicts(killNode);
      try {
        List<JdbcKeyStore> stores = new ArrayList<>();
        for (int n = 1; n <= nodes; n++) {
          HikariDataSource pool = pool(n);
          pools.add(pool);
          JdbcKeyStore.builder(pool).tableName(table).createSchemaIfMissing().build();
          stores.add(JdbcKeyStore.builder(pool).tableName(table).build());
          threads.add(Executors.newFixedThreadPool(THREADS_PER_NODE));
        }
        try (Connection c = pools.get(0).getConnection();
            Statement s = c.createStatement()) {
          s.execute(
              "CREATE TABLE IF NOT EXISTS "
                  + GaleraCaller.WORK_TABLE
                  + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(255) NOT NULL)");
        }
        if (killNode > 0) {
          try (Connection c = pools.get(killNode - 1).getConnection();
              Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT @@wsrep_node_name")) {
            rs.next();
            assertThat(rs.getString(1))
                .as("the node the callers of pool %d use before the kill", killNode)
                .isEqualTo("node" + killNode);
          }
        }
        List<Future<?>> calls = new ArrayList<>();
        List<AtomicInteger> done = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
          done.add(new AtomicInteger());
        }
        for (RecordId id : ids) {
          for (int n = 0; n < nodes; n++) {
            JdbcKeyStore store = stores.get(n);
            AtomicInteger doneOnNode = done.get(n);
            calls.add(
                threads
                    .get(n)
                    .submit(
                        () -> {
                          caller.call(store, id);
                          doneOnNode.incrementAndGet();
                        }));
          }
        }
        long killedAt = 0;
        if (killNode > 0) {
          // a third of the way through the calls sent to the node that dies
          AtomicInteger doneOnKilled = done.get(killNode - 1);
          long waitEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (doneOnKilled.get() < KEYS / 3 && System.nanoTime() < waitEnd) {
            TimeUnit.MILLISECONDS.sleep(2);
          }
          assertThat(doneOnKilled.get())
              .as("calls done on the node before the kill")
              .isLessThan(KEYS);
          killedAt = System.nanoTime();
          cluster.kill(killNode);
          callsLeftOnKilledNode = KEYS - doneOnKilled.get();
        }
        for (Future<?> f : calls) {
          f.get(90, TimeUnit.SECONDS);
        }
        if (killNode > 0) {
          // from the kill to the last call that failed: callers met errors that long
          unavailableSeconds = Math.max(0, caller.lastErrorAt.get() - killedAt) / 1e9;
        }
        certificationConflicts = conflicts(killNode) - conflictsBefore;
        Map<String, Integer> perKey = sideEffectsPerKey();
        sideEffects = perKey.values().stream().mapToInt(Integer::intValue).sum();
        keysRunTwice = perKey.values().stream().filter(n -> n > 1).count();
        report(killNode); // the figures first, also of a run that fails below

        for (int n = 1; n <= nodes; n++) {
          if (n == killNode) {
            continue;
          }
          JdbcKeyStore store = stores.get(n - 1);
          for (RecordId id : ids) {
            assertThat(store.lookup(id).map(RecordSnapshot::state))
                .as("the state of %s on node %d", id, n)
                .contains(KeyState.COMPLETE);
          }
        }
        assertThat(caller.unexpected)
            .as("failures other than StoreUnavailableException and the work's own")
            .isEmpty();
        assertThat(perKey)
            .as("keys whose side effect did not happen once")
            .allSatisfy((key, n) -> assertThat(n).as(key).isOne());
      } finally {
        threads.forEach(ExecutorService::shutdownNow);
        pools.forEach(HikariDataSource::close);
      }
    }

    /**
     * The side effects of each key: the work's calls (two commits) or its committed rows (one
     * transaction).
     */
    private Map<String, Integer> sideEffectsPerKey() throws Exception {
      Map<String, Integer> perKey = new TreeMap<>();
      if (!caller.oneTransaction) {
        caller.workCalls.forEach((id, n) -> perKey.put(id.key().value(), n.get()));
        return perKey;
      }
      Map<String, Integer> rows = new HashMap<>();
      try (HikariDataSource pool = pool(1);
          Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT k, COUNT(*) FROM " + GaleraCaller.WORK_TABLE + " GROUP BY k")) {
        while (rs.next()) {
          rows.put(rs.getString(1), rs.getInt(2));
        }
      }
      for (RecordId id : ids) {
        perKey.put(id.key().value(), rows.getOrDefault(id.key().value(), 0));
      }
      return perKey;
    }

    private void report(int killNode) {
      int sent = KEYS * cluster.size();
      int workCalls = caller.workCalls.values().stream().mapToInt(AtomicInteger::get).sum();
      System.out.printf(
          "GALERA %s: %d keys, %d calls sent (%d per key), %d side effects, %d keys run twice,"
              + " %d work calls, %d certification conflicts%s, longest store call %.1f s;"
              + " outcomes %s; errors %s%n",
          name,
          KEYS,
          sent,
          cluster.size(),
          sideEffects,
          keysRunTwice,
          workCalls,
          certificationConflicts,
          killNode > 0
              ? String.format(
                  ", node %d killed with %d of its calls left, errors for %.1f s after the kill",
                  killNode, callsLeftOnKilledNode, unavailableSeconds)
              : "",
          caller.longestStoreCall.get() / 1e9,
          new TreeMap<>(caller.outcomes),
          new TreeMap<>(caller.errors));
    }
  }

  /** The certification failures and brute-force aborts the nodes counted, all but the dead one. */
  private static long conflicts(int skip) throws Exception {
    long sum = 0;
    for (int n = 1; n <= cluster.size(); n++) {
      if (n != skip) {
        sum +=
            cluster.status(n, "wsrep_local_cert_failures")
                + cluster.status(n, "wsrep_local_bf_aborts");
      }
    }
    return sum;
  }

  private static HikariDataSource pool(int node) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(cluster.failoverUrl(node, PARAMS));
    config.setUsername("root");
    config.setPassword("");
    config.setMaximumPoolSize(THREADS_PER_NODE);
    config.setConnectionTimeout(3000);
    config.setValidationTimeout(1000);
    config.setPoolName("galera-node-" + node);
    return new HikariDataSource(config);
  }
}
