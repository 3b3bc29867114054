package dev.idempotency.store.redis;

import static org.junit.jupiter.api.Assertions.fail;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of the test's own as production runs one: six {@link RedisServerProcess}es on
 * loopback, three primaries and a replica of each, formed by {@code redis-cli --cluster create …
 * --cluster-replicas 1}, with a short {@code cluster-node-timeout} so that a failover fits a test.
 * Ready when every node reports {@code cluster_state:ok} and every replica's link to its primary is
 * up. {@link #close()} kills every node.
 */
final class RedisClusterOfSix implements AutoCloseable {
  private final List<RedisServerProcess> nodes = new ArrayList<>();

  private RedisClusterOfSix() {}

  /** Starts and forms the cluster, waiting (at most 60 s) until it is ready. */
  static RedisClusterOfSix start(Path dir, Duration nodeTimeout) throws Exception {
    RedisClusterOfSix cluster = new RedisClusterOfSix();
    try {
      for (int i = 0; i < 6; i++) {
        cluster.nodes.add(RedisClusterProcesses.clusterNode(dir, i, nodeTimeout));
      }
      cluster.create(dir);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  private void create(Path dir) throws Exception {
    List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    for (RedisServerProcess node : nodes) {
      command.add("127.0.0.1:" + node.port());
    }
    command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    Path out = dir.resolve("cluster-create.out");
    Process create =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
      create.destroyForcibly();
      fail("redis-cli --cluster create failed: " + Files.readString(out, StandardCharsets.UTF_8));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (RedisServerProcess node : nodes) {
      await(
          node,
          info ->
              info.contains("cluster_state:ok")
                  && info.contains("cluster_known_nodes:6")
                  && (info.contains("role:master") || info.contains("master_link_status:up")),
          "ready",
          deadline);
    }
  }

  /** The primary that serves {@code key}'s slot now, as {@code CLUSTER SLOTS} says. */
  RedisServerProcess primaryOf(byte[] key) {
    int port = RedisClusterProcesses.sync(nodes.get(0), c -> primaryPort(c, SlotHash.getSlot(key)));
    return nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
  }

  /** The replica of {@code primary}, as its {@code INFO replication} says. */
  RedisServerProcess replicaOf(RedisServerProcess primary) {
    return nodes.stream()
        .filter(
            n -> RedisClusterProcesses.infoOf(n).contains("master_port:" + primary.port() + "\r\n"))
        .findFirst()
        .orElseThrow();
  }

  private static int primaryPort(RedisCommands<String, String> c, int slot) {
    for (Object range : c.clusterSlots()) {
      List<?> r = (List<?>) range;
      if (((Long) r.get(0)) <= slot && slot <= ((Long) r.get(1))) {
        return ((Long) ((List<?>) r.get(2)).get(1)).intValue();
      }
    }
    throw new IllegalStateException("slot " + slot + " has no primary");
  }

  /**
   * Waits (at most {@code timeout}) until every node but {@code dead} reports {@code
   * cluster_state:ok} and another primary serves {@code key}'s slot: the failover is over as far as
   * the cluster is concerned.
   */
  void awaitFailover(RedisServerProcess dead, byte[] key, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (RedisServerProcess node : nodes) {
      if (node != dead) {
        await(node, info -> info.contains("cluster_state:ok"), "cluster_state:ok", deadline);
      }
    }
    int slot = SlotHash.getSlot(key);
    RedisServerProcess witness = nodes.stream().filter(n -> n != dead).findFirst().orElseThrow();
    while (RedisClusterProcesses.sync(witness, c -> primaryPort(c, slot)) == dead.port()) {
      if (System.nanoTime() > deadline) {
        fail("slot " + slot + " still served by the dead node after " + timeout);
      }
      Thread.sleep(20);
    }
  }

  private static void await(
      RedisServerProcess node, java.util.function.Predicate<String> ok, String what, long deadline)
      throws InterruptedException {
    String info;
    while (!ok.test(info = RedisClusterProcesses.infoOf(node))) {
      if (System.nanoTime() > deadline) {
        fail("Redis Cluster node " + node.port() + " not " + what + ": " + info);
      }
      Thread.sleep(20);
    }
  }

  /** Every node's URI, to seed a cluster client. */
  List<RedisURI> uris() {
    return nodes.stream().map(n -> RedisURI.create(n.uri())).toList();
  }

  @Override
  public void close() throws InterruptedException {
    for (RedisServerProcess node : nodes) {
      node.close();
    }
  }
}
