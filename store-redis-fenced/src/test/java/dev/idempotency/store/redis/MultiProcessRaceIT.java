package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four application instances, each a JVM of its own with its own connection, race for one key per
 * round, five rounds: in each, all four are blocked on {@code BLPOP} of one list, and the test
 * pushes four items in one command, so Redis wakes them in the same event-loop turn and their
 * claims reach it within a fraction of a millisecond of each other: a claim made of a read and a
 * later write would interleave with another here, one script cannot. Per round, one claims and
 * three find the record in flight. The TCK races threads over several connections in one JVM; this
 * is the same race between processes.
 */
class MultiProcessRaceIT {
  private static final int WORKERS = 4;
  private static final int ROUNDS = 5;

  @Test
  void ofFourProcessesReleasedTogetherOneClaimsPerRound(@TempDir Path dir) throws Exception {
    String prefix = SharedRedis.uniquePrefix("race");
    List<OwnerProcess> workers = new ArrayList<>();
    RedisClient client = SharedRedis.client();
    try (StatefulRedisConnection<byte[], byte[]> c = SharedRedis.connect(client)) {
      for (int i = 0; i < WORKERS; i++) {
        workers.add(
            OwnerProcess.start(
                "racer-" + i,
                dir,
                "race",
                SharedRedis.uri(),
                prefix,
                "contested",
                Integer.toString(ROUNDS)));
      }
      byte[] goList = (prefix + "go").getBytes(StandardCharsets.US_ASCII);
      for (int r = 0; r < ROUNDS; r++) {
        for (OwnerProcess w : workers) {
          w.await("READY-" + r);
        }
        awaitBlocked(c.sync(), workers);
        byte[][] items = new byte[WORKERS][];
        java.util.Arrays.fill(items, new byte[] {'1'});
        c.sync().rpush(goList, items);
        List<String> outcomes = new ArrayList<>();
        for (OwnerProcess w : workers) {
          outcomes.add(w.await("OUTCOME-" + r));
        }
        assertThat(outcomes).as("round %s", r).filteredOn("Claimed"::equals).hasSize(1);
        assertThat(outcomes).as("round %s", r).filteredOn("InFlight"::equals).hasSize(3);
      }
      for (OwnerProcess w : workers) {
        assertThat(w.awaitExit()).as(w.transcript()).isZero();
      }
    } finally {
      for (OwnerProcess w : workers) {
        w.close();
      }
      try (StatefulRedisConnection<byte[], byte[]> c = SharedRedis.connect(client)) {
        SharedRedis.deleteAll(c, prefix);
      }
      client.shutdown();
    }
  }

  /**
   * A worker left behind by a test JVM that died is not left running: it exits as soon as its
   * standard input, which the test JVM holds, closes (shown here while it blocks on {@code BLPOP}).
   */
  @Test
  void aWorkerWhoseParentIsGoneExits(@TempDir Path dir) throws Exception {
    String prefix = SharedRedis.uniquePrefix("orphan");
    try (OwnerProcess w =
        OwnerProcess.start(
            "orphan", dir, "race", SharedRedis.uri(), prefix, "never-released", "1")) {
      w.await("READY-0");
      w.closeInput();
      assertThat(w.awaitExit()).as("exit code of the orphaned worker").isEqualTo(2);
    }
  }

  /**
   * Waits (at most 20 s) until Redis counts at least as many blocked clients as there are workers:
   * each has printed READY, but its BLPOP may still be on its way.
   */
  private static void awaitBlocked(RedisCommands<byte[], byte[]> redis, List<OwnerProcess> workers)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (blockedClients(redis) < workers.size()) {
      if (System.nanoTime() > deadline) {
        fail("the workers did not block on BLPOP within 20 s");
      }
      Thread.sleep(5);
    }
  }

  private static long blockedClients(RedisCommands<byte[], byte[]> redis) {
    for (String line : redis.info("clients").split("\r?\n")) {
      if (line.startsWith("blocked_clients:")) {
        return Long.parseLong(line.substring("blocked_clients:".length()).trim());
      }
    }
    return 0;
  }
}
