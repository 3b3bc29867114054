package dev.idempotency.store.redis;

import static org.junit.jupiter.api.Assertions.fail;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Redis Cluster of the test's own on loopback: {@code masters} primaries that split the 16384
 * slots evenly, and optionally one replica of the first, each a {@link RedisServerProcess} in a
 * directory of its own, so that a test can kill or freeze a node. Built with {@code CLUSTER MEET},
 * {@code ADDSLOTSRANGE} and {@code REPLICATE}; ready when every node reports {@code
 * cluster_state:ok} and knows every other. {@link #close()} kills them all.
 */
final class RedisClusterProcesses implements AutoCloseable {
  /**
   * The topology refresh docs/stores-redis.md recommends for the store's Cluster connection: a
   * periodic refresh every second, every adaptive trigger, after one failed reconnect, at most once
   * a second.
   */
  static final ClusterTopologyRefreshOptions RECOMMENDED_REFRESH =
      ClusterTopologyRefreshOptions.builder()
          .enablePeriodicRefresh(Duration.ofSeconds(1))
          .enableAllAdaptiveRefreshTriggers()
          .refreshTriggersReconnectAttempts(1)
          .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
          .build();

  private final List<RedisServerProcess> nodes = new ArrayList<>();
  private final List<String> ids = new ArrayList<>();
  private final int masters;

  private RedisClusterProcesses(int masters) {
    this.masters = masters;
  }

  /**
   * Starts the cluster and waits (at most 30 s) until it is ready.
   *
   * @param nodeTimeout Redis' {@code cluster-node-timeout}: how long a silent node takes to be
   *     marked failed (and its replica to take over)
   */
  static RedisClusterProcesses start(
      Path dir, int masters, boolean replicaOfFirst, Duration nodeTimeout) throws Exception {
    RedisClusterProcesses cluster = new RedisClusterProcesses(masters);
    try {
      int count = masters + (replicaOfFirst ? 1 : 0);
      for (int i = 0; i < count; i++) {
        cluster.nodes.add(clusterNode(dir, i, nodeTimeout));
      }
      cluster.form(replicaOfFirst);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Starts a node in cluster mode, in {@code dir}'s subdirectory {@code node-i}. */
  static RedisServerProcess clusterNode(Path dir, int i, Duration nodeTimeout) throws Exception {
    return RedisServerProcess.start(
        Files.createDirectories(dir.resolve("node-" + i)),
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
        "--cluster-node-timeout",
        Long.toString(nodeTimeout.toMillis()));
  }

  /** The node {@code i}: the primaries first, then the replica. */
  RedisServerProcess node(int i) {
    return nodes.get(i);
  }

  /** A cluster client seeded with every node, with {@code refresh} as its topology refresh. */
  RedisClusterClient client(ClusterTopologyRefreshOptions refresh) {
    RedisClusterClient client =
        RedisClusterClient.create(
            nodes.stream()
                .map(RedisServerProcess::uri)
                .map(io.lettuce.core.RedisURI::create)
                .toList());
    client.setOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build());
    return client;
  }

  /**
   * Waits (at most {@code timeout}) until every node but {@code except} reports {@code
   * cluster_state:ok} and node {@code promoted} is a primary: the failover of a dead primary is
   * over as far as the cluster is concerned.
   */
  void awaitFailover(int except, int promoted, Duration timeout) throws Exception {
    awaitOn(
        i -> i != except,
        info -> info.contains("cluster_state:ok"),
        "cluster_state:ok on the surviving nodes",
        timeout);
    awaitOn(
        i -> i == promoted,
        info -> info.contains("role:master"),
        "node " + promoted + " promoted to primary",
        timeout);
  }

  private void form(boolean replicaOfFirst) throws Exception {
    for (RedisServerProcess node : nodes) {
      ids.add(sync(node, c -> c.clusterMyId()));
    }
    for (int i = 1; i < nodes.size(); i++) {
      int port = nodes.get(i).port();
      sync(nodes.get(0), c -> c.clusterMeet("127.0.0.1", port));
    }
    for (int i = 0; i < masters; i++) {
      int from = i * 16384 / masters;
      int to = (i + 1) * 16384 / masters - 1;
      sync(nodes.get(i), c -> c.clusterAddSlotsRange(Range.create(from, to)));
    }
    Duration ready = Duration.ofSeconds(30);
    awaitOn(
        i -> true,
        info -> info.contains("cluster_known_nodes:" + nodes.size()),
        "every node known",
        ready);
    if (replicaOfFirst) {
      String first = ids.get(0);
      sync(nodes.get(masters), c -> c.clusterReplicate(first));
      awaitOn(
          i -> i == masters,
          info -> info.contains("master_link_status:up"),
          "the replica's link",
          ready);
    }
    awaitOn(i -> true, info -> info.contains("cluster_state:ok"), "cluster_state:ok", ready);
  }

  /** Polls {@code CLUSTER INFO} and {@code INFO replication} of the chosen nodes until all pass. */
  private void awaitOn(
      Predicate<Integer> which, Predicate<String> ok, String what, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < nodes.size(); i++) {
      if (!which.test(i)) {
        continue;
      }
      while (!ok.test(infoOf(nodes.get(i)))) {
        if (System.nanoTime() > deadline) {
          fail(
              "Redis Cluster: no "
                  + what
                  + " on node "
                  + i
                  + " within "
                  + timeout
                  + ": "
                  + infoOf(nodes.get(i)));
        }
        Thread.sleep(50);
      }
    }
  }

  /**
   * {@code CLUSTER INFO} and {@code INFO replication} of {@code node}, or why it did not answer.
   */
  static String infoOf(RedisServerProcess node) {
    try {
      return sync(node, c -> c.clusterInfo() + c.info("replication"));
    } catch (RuntimeException e) {
      return "(no answer: " + e + ")";
    }
  }

  /** Runs {@code call} over a connection of its own to {@code node} (5 s timeout). */
  static <T> T sync(
      RedisServerProcess node, java.util.function.Function<RedisCommands<String, String>, T> call) {
    RedisClient plain =
        RedisClient.create(
            io.lettuce.core.RedisURI.builder(io.lettuce.core.RedisURI.create(node.uri()))
                .withTimeout(Duration.ofSeconds(5))
                .build());
    try (StatefulRedisConnection<String, String> c = plain.connect(StringCodec.UTF8)) {
      return call.apply(c.sync());
    } finally {
      plain.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (RedisServerProcess node : nodes) {
      node.close();
    }
  }
}
