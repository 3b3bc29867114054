package dev.idempotency.store.redis;

import static org.junit.jupiter.api.Assertions.fail;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Redis under Sentinel, the test's own, on loopback: one primary, two replicas ({@code
 * --replicaof}) and three sentinels (quorum 2) that monitor the primary as {@link #MASTER_ID}, each
 * a {@link RedisServerProcess} in a directory of its own, so that a test can kill the primary with
 * {@code kill -9} and let the sentinels promote a replica. Ready when both replicas' links are up
 * and every sentinel knows both replicas and both other sentinels. {@link #close()} kills them all.
 */
final class RedisSentinelProcesses implements AutoCloseable {
  static final String MASTER_ID = "idem-primary";

  /** The primary first, then the two replicas. */
  private final List<RedisServerProcess> servers = new ArrayList<>();

  private final List<RedisServerProcess> sentinels = new ArrayList<>();

  private RedisSentinelProcesses() {}

  /**
   * Starts the five processes and waits (at most 30 s) until they are ready.
   *
   * @param downAfter Sentinel's {@code down-after-milliseconds}: how long a silent primary takes to
   *     be judged down
   * @param failoverTimeout Sentinel's {@code failover-timeout}: among others, how long before a
   *     failed failover (a split vote) is tried again (twice this)
   */
  static RedisSentinelProcesses start(Path dir, Duration downAfter, Duration failoverTimeout)
      throws Exception {
    RedisSentinelProcesses set = new RedisSentinelProcesses();
    try {
      RedisServerProcess primary =
          RedisServerProcess.start(Files.createDirectories(dir.resolve("primary")));
      set.servers.add(primary);
      for (int i = 1; i <= 2; i++) {
        set.servers.add(
            RedisServerProcess.start(
                Files.createDirectories(dir.resolve("replica-" + i)),
                "--replicaof",
                "127.0.0.1",
                Integer.toString(primary.port())));
      }
      for (int i = 1; i <= 3; i++) {
        set.sentinels.add(
            RedisServerProcess.startSentinel(
                Files.createDirectories(dir.resolve("sentinel-" + i)),
                List.of(
                    "sentinel monitor " + MASTER_ID + " 127.0.0.1 " + primary.port() + " 2",
                    "sentinel down-after-milliseconds " + MASTER_ID + " " + downAfter.toMillis(),
                    "sentinel failover-timeout " + MASTER_ID + " " + failoverTimeout.toMillis(),
                    "sentinel parallel-syncs " + MASTER_ID + " 2")));
      }
      set.awaitReady(Duration.ofSeconds(30));
      return set;
    } catch (Exception | Error e) {
      set.close();
      throw e;
    }
  }

  /**
   * The URI an application connects with: every sentinel and the master id, no server address.
   * Lettuce asks a sentinel for the primary's address at every connect and reconnect.
   */
  RedisURI uri() {
    RedisURI.Builder uri =
        RedisURI.Builder.sentinel("127.0.0.1", sentinels.get(0).port(), MASTER_ID);
    for (RedisServerProcess s : sentinels.subList(1, sentinels.size())) {
      uri.withSentinel("127.0.0.1", s.port());
    }
    return uri.build();
  }

  /** The server the sentinels name as primary now. */
  RedisServerProcess primary() {
    int port = primaryPortSeenBy(sentinels.get(0));
    return servers.stream().filter(s -> s.port() == port).findFirst().orElseThrow();
  }

  /**
   * Waits (at most {@code timeout}) until every sentinel names another server than {@code dead} as
   * primary and that server reports {@code role:master}: the failover is over as far as Sentinel is
   * concerned.
   */
  void awaitFailover(RedisServerProcess dead, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (RedisServerProcess sentinel : sentinels) {
      while (primaryPortSeenBy(sentinel) == dead.port()) {
        check(deadline, "sentinel " + sentinel.port() + " still names the dead primary");
      }
    }
    RedisServerProcess promoted = primary();
    while (!replicationOf(promoted).contains("role:master")) {
      check(deadline, "the promoted replica " + promoted.port() + " is not primary");
    }
  }

  /**
   * Cuts both replicas off the primary, as a partition would: freezes them with one {@code kill
   * -STOP}, so that they cannot reconnect, then closes their links on the primary ({@code CLIENT
   * KILL TYPE replica}). From here on the primary acknowledges writes that no replica will get;
   * what was sent before stays in the frozen replicas' socket buffers and is applied when they are
   * thawed. Call before any failover (servers 1 and 2 are the replicas).
   */
  void cutOffReplicas() throws Exception {
    RedisServerProcess.freezeTogether(servers.get(1), servers.get(2));
    long closed =
        RedisClusterProcesses.sync(servers.get(0), c -> c.clientKill(KillArgs.Builder.typeSlave()));
    if (closed != 2) {
      fail("CLIENT KILL TYPE replica closed " + closed + " links, not 2");
    }
  }

  /** {@code kill -CONT} of both replicas. */
  void thawReplicas() throws Exception {
    servers.get(1).thaw();
    servers.get(2).thaw();
  }

  private void awaitReady(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (RedisServerProcess replica : servers.subList(1, servers.size())) {
      while (!replicationOf(replica).contains("master_link_status:up")) {
        check(deadline, "replica " + replica.port() + " not in sync");
      }
    }
    for (RedisServerProcess sentinel : sentinels) {
      while (!knowsEveryone(sentinel)) {
        check(deadline, "sentinel " + sentinel.port() + " does not know every replica and peer");
      }
    }
  }

  /** {@code INFO replication} of {@code server}, or why it did not answer. */
  private static String replicationOf(RedisServerProcess server) {
    try {
      return RedisClusterProcesses.sync(server, c -> c.info("replication"));
    } catch (RuntimeException e) {
      return "(no answer: " + e + ")";
    }
  }

  private static boolean knowsEveryone(RedisServerProcess sentinel) {
    try {
      Map<String, String> master = onSentinel(sentinel, c -> c.master(MASTER_ID));
      return "2".equals(master.get("num-slaves"))
          && "2".equals(master.get("num-other-sentinels"))
          && "master".equals(master.get("flags"));
    } catch (RuntimeException notYet) {
      return false;
    }
  }

  private static int primaryPortSeenBy(RedisServerProcess sentinel) {
    SocketAddress address = onSentinel(sentinel, c -> c.getMasterAddrByName(MASTER_ID));
    return ((InetSocketAddress) address).getPort();
  }

  private static void check(long deadline, String what) throws InterruptedException {
    if (System.nanoTime() > deadline) {
      fail("Redis Sentinel: " + what);
    }
    Thread.sleep(50);
  }

  /** Runs {@code call} over a sentinel connection of its own (5 s timeout). */
  private static <T> T onSentinel(
      RedisServerProcess sentinel, Function<RedisSentinelCommands<String, String>, T> call) {
    RedisClient plain =
        RedisClient.create(
            RedisURI.builder(RedisURI.create(sentinel.uri()))
                .withTimeout(Duration.ofSeconds(5))
                .build());
    try (StatefulRedisSentinelConnection<String, String> c =
        plain.connectSentinel(StringCodec.UTF8)) {
      return call.apply(c.sync());
    } finally {
      plain.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (RedisServerProcess s : sentinels) {
      s.close();
    }
    for (RedisServerProcess s : servers) {
      s.close();
    }
  }
}
