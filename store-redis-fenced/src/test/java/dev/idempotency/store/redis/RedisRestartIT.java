package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis killed with {@code kill -9} mid-run and restarted: with AOF {@code appendfsync always} no
 * claim acknowledged before the kill executes again; with persistence off every record is gone (a
 * retry executes again: the documented loss) while fences still rise above every fence issued
 * before, because a claim whose counter is gone draws its fence from the server's clock.
 */
class RedisRestartIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");
  private static final int KEYS = 40;

  @Test
  void withAppendfsyncAlwaysNoAcknowledgedClaimExecutesAgain(@TempDir Path dir) throws Exception {
    try (OwnRedis redis = new OwnRedis(dir, "--appendonly", "yes", "--appendfsync", "always")) {
      RedisKeyStore store = redis.store().clock(RedisClock.ENGINE).build();
      List<ClaimOutcome.Claimed> before = claimAll(store);

      redis.server.killDashNine();
      redis.server.restart();

      for (int i = 0; i < KEYS; i++) {
        RecordId id = id(i);
        ClaimOutcome retry =
            i == 0 ? OwnRedis.claimOnceReachable(store, id, NOW) : OwnRedis.claim(store, id, NOW);
        // even keys were completed before the kill, odd ones were in flight under a live lease
        assertThat(retry)
            .as("retry of %s after the restart: executing it again would be a duplicate", id)
            .isInstanceOf(i % 2 == 0 ? ClaimOutcome.Completed.class : ClaimOutcome.InFlight.class);
      }
      ClaimOutcome.Claimed takeover =
          (ClaimOutcome.Claimed) OwnRedis.claim(store, id(1), NOW.plus(OwnRedis.LEASE));
      assertThat(takeover.fence().isNewerThan(before.get(1).fence())).isTrue();
    }
  }

  @Test
  void withoutPersistenceRecordsAreGoneButFencesStillRise(@TempDir Path dir) throws Exception {
    try (OwnRedis redis = new OwnRedis(dir)) {
      RedisKeyStore store = redis.store().clock(RedisClock.ENGINE).build();
      List<ClaimOutcome.Claimed> before = claimAll(store);
      long highest = before.stream().mapToLong(c -> c.fence().value()).max().orElseThrow();

      redis.server.killDashNine();
      redis.server.restart();

      for (int i = 0; i < KEYS; i++) {
        RecordId id = id(i);
        ClaimOutcome retry =
            i == 0 ? OwnRedis.claimOnceReachable(store, id, NOW) : OwnRedis.claim(store, id, NOW);
        assertThat(retry)
            .as("retry of %s after a restart without persistence: the record is gone", id)
            .isInstanceOf(ClaimOutcome.Claimed.class);
        assertThat(((ClaimOutcome.Claimed) retry).fence().value())
            .as("fence of %s after the restart, above every fence issued before it", id)
            .isGreaterThan(highest);
      }
    }
  }

  private static RecordId id(int i) {
    return RecordId.of("tenant", "k" + i);
  }

  /** Claims every key, acknowledged; completes the even ones. */
  private static List<ClaimOutcome.Claimed> claimAll(RedisKeyStore store) {
    List<ClaimOutcome.Claimed> claims = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) OwnRedis.claim(store, id(i), NOW);
      if (i % 2 == 0) {
        store.complete(id(i), c.fence(), StoredResponse.ofUtf8(201, "done " + i), NOW);
      }
      claims.add(c);
    }
    return claims;
  }
}
