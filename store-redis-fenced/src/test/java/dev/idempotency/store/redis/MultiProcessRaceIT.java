package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.TestDatabases;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four application instances, each a JVM of its own with its own connection, wait before the claim
 * and are released together (they poll for the go every millisecond): exactly one wins, the others
 * find the record in flight. The TCK races threads over several connections in one JVM; this is the
 * same race between processes.
 */
class MultiProcessRaceIT {
  @Test
  void ofFourProcessesReleasedTogetherExactlyOneClaims(@TempDir Path dir) throws Exception {
    String uri = TestDatabases.require("IDEMPOTENCY_TEST_REDIS_URL").get(0);
    String prefix = SharedRedis.uniquePrefix("race");
    List<OwnerProcess> workers = new ArrayList<>();
    RedisClient client = SharedRedis.client();
    try {
      for (int i = 0; i < 4; i++) {
        workers.add(OwnerProcess.start("racer-" + i, dir, "race", uri, prefix, "contested"));
      }
      for (OwnerProcess w : workers) {
        w.await("WAITING");
      }
      for (OwnerProcess w : workers) {
        w.go();
      }
      List<String> outcomes = new ArrayList<>();
      for (OwnerProcess w : workers) {
        outcomes.add(w.await("OUTCOME"));
        assertThat(w.awaitExit()).as(w.transcript()).isZero();
      }
      assertThat(outcomes).filteredOn("Claimed"::equals).hasSize(1);
      assertThat(outcomes).filteredOn("InFlight"::equals).hasSize(3);
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
}
