package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.store.redis.internal.KeyLayout;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How long the store's keys live and what its index walks see, on the shared server: the replay
 * window against the retention, the key expiries of record and fence counter after every write
 * ({@code PTTL}), fences above a counter that is ahead of the clock, and the reaper and {@code
 * findAbandoned} behind masses of index entries whose records are gone.
 */
class RecordLifetimeIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration RETENTION = Duration.ofDays(2);

  /** How far a PTTL read after the write may be below the expiry the write set. */
  private static final long SLACK_MILLIS = 5_000;

  private RedisClient client;
  private StatefulRedisConnection<byte[], byte[]> connection;
  private RedisCommands<byte[], byte[]> redis;
  private String prefix = "";
  private KeyLayout layout;
  private RedisKeyStore store;

  @BeforeEach
  void connect() {
    client = SharedRedis.client();
    connection = SharedRedis.connect(client);
    redis = connection.sync();
    prefix = SharedRedis.uniquePrefix("lifetime");
    layout = KeyLayout.of(prefix, 1);
    store =
        RedisKeyStore.builder(connection)
            .keyPrefix(prefix)
            .clock(RedisClock.ENGINE)
            .retention(RETENTION)
            .build();
  }

  @AfterEach
  void close() {
    SharedRedis.cleanUp(client, connection, prefix);
  }

  @Test
  void aReplayWindowLongerThanTheRetentionIsRefusedNamingBoth() {
    RecordId id = RecordId.of("t", "week-long-window");
    ClaimRequest request =
        new ClaimRequest(id, OwnRedis.FINGERPRINT, NOW, OwnRedis.LEASE, Duration.ofDays(7));
    assertThatThrownBy(() -> store.claim(request))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("PT168H")
        .hasMessageContaining("PT48H");
    assertThat(store.lookup(id)).isEmpty();
    // a window as long as the retention is fine
    assertThat(
            store.claim(new ClaimRequest(id, OwnRedis.FINGERPRINT, NOW, OwnRedis.LEASE, RETENTION)))
        .isInstanceOf(ClaimOutcome.Claimed.class);
  }

  @Test
  void theFenceCounterOutlivesItsRecordByARetentionAfterEveryWrite() {
    RecordId id = RecordId.of("t", "renewed-for-long");
    String member = KeyLayout.member(id);
    FenceToken fence = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
    assertExpiries(member, OwnRedis.LEASE.plus(RETENTION));

    store.heartbeat(id, fence, NOW, Duration.ofHours(10));
    assertExpiries(member, Duration.ofHours(10).plus(RETENTION));
    store.checkpoint(id, fence, RecoveryPoint.of("p"), NOW, Duration.ofHours(20));
    assertExpiries(member, Duration.ofHours(20).plus(RETENTION));
    assertThat(store.heartbeatAll(Map.of(id, fence), NOW, Duration.ofHours(30))).isEmpty();
    assertExpiries(member, Duration.ofHours(30).plus(RETENTION));

    // a counter already gone (expired, evicted) comes back with the record's fence
    redis.del(layout.counter(member));
    store.complete(id, fence, StoredResponse.ofUtf8(200, "done"), NOW);
    assertExpiries(member, RETENTION);
    assertThat(counter(member)).isEqualTo(fence.value());
  }

  @Test
  void aReleaseKeepsTheCounterForTwoRetentionsEvenIfItWasGone() {
    RecordId id = RecordId.of("t", "released");
    String member = KeyLayout.member(id);
    FenceToken fence = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
    redis.del(layout.counter(member));
    store.release(id, fence, NOW);
    assertThat(redis.pttl(layout.record(member))).as("PTTL of the released record").isEqualTo(-2);
    assertThat(counter(member)).isEqualTo(fence.value());
    assertPttl(layout.counter(member), RETENTION.multipliedBy(2));
  }

  /**
   * The clock floor hides a broken counter as long as the counter is below the clock: seeded far
   * above it, only the counter can keep fences rising, across a release and a purge.
   */
  @Test
  void fencesRiseAboveACounterAheadOfTheClockAcrossReleaseAndPurge() {
    RecordId id = RecordId.of("t", "counter-ahead");
    String member = KeyLayout.member(id);
    long seeded = redisClockMicros() + 1_000_000_000_000L; // about 11.6 days ahead
    redis.set(layout.counter(member), ascii(Long.toString(seeded)));

    FenceToken first = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
    assertThat(first.value()).as("first fence above the seeded counter").isGreaterThan(seeded);
    store.release(id, first, NOW);
    FenceToken second = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
    assertThat(second.isNewerThan(first)).as("%s after the release of %s", second, first).isTrue();
    store.complete(id, second, StoredResponse.ofUtf8(200, "x"), NOW);
    Instant muchLater = NOW.plus(Duration.ofDays(3));
    assertThat(store.deleteExpired(muchLater, RETENTION, 10)).isEqualTo(1);
    assertThat(store.lookup(id)).as("purged").isEmpty();
    FenceToken third = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, muchLater)).fence();
    assertThat(third.isNewerThan(second)).as("%s after the purge of %s", third, second).isTrue();
  }

  @Test
  void deleteExpiredReturnsItsLimitWhileRecordsBehindStaleEntriesAreEligible() {
    // 700 completion-index entries whose records are gone, older than every real record
    List<ScoredValue<byte[]>> stale = new ArrayList<>();
    for (int i = 0; i < 700; i++) {
      stale.add(ScoredValue.just(i, ascii(KeyLayout.member(RecordId.of("t", "gone-" + i)))));
    }
    redis.zadd(layout.completionIndex(0), stale.toArray(new ScoredValue[0]));
    for (int i = 0; i < 5; i++) {
      RecordId id = RecordId.of("t", "done-" + i);
      FenceToken f = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
      store.complete(id, f, StoredResponse.ofUtf8(200, "x"), NOW);
    }
    Instant later = NOW.plus(RETENTION);
    assertThat(store.deleteExpired(later, RETENTION, 3)).as("first batch of 3").isEqualTo(3);
    assertThat(store.deleteExpired(later, RETENTION, 3)).as("the last 2").isEqualTo(2);
    assertThat(store.deleteExpired(later, RETENTION, 3)).isZero();
    assertThat(redis.zcard(layout.completionIndex(0))).as("stale entries dropped").isZero();
  }

  @Test
  void findAbandonedLooksAtABoundedNumberOfEntriesAndTheReaperClearsTheWay() {
    RecordId abandoned = RecordId.of("t", "abandoned");
    OwnRedis.claim(store, abandoned, NOW);
    // 2000 lease-index entries whose records are gone, all older than the real lease
    List<ScoredValue<byte[]>> stale = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      stale.add(ScoredValue.just(i, ascii(KeyLayout.member(RecordId.of("t", "gone-" + i)))));
    }
    redis.zadd(layout.leaseIndex(0), stale.toArray(new ScoredValue[0]));
    Instant afterTheLease = NOW.plus(OwnRedis.LEASE);

    // limit 1: at most 10 * 1 + 100 entries looked at, all of them stale
    assertThat(store.findAbandoned(afterTheLease, 1)).isEmpty();
    assertThat(store.findAbandoned(afterTheLease, 300))
        .extracting(s -> s.id())
        .containsExactly(abandoned);
    // the reaper drops the stale entries (their records are gone), and the record is found
    assertThat(store.deleteExpired(afterTheLease, Duration.ofDays(1), 10)).isZero();
    assertThat(store.findAbandoned(afterTheLease, 1))
        .extracting(s -> s.id())
        .containsExactly(abandoned);
  }

  @Test
  void anExtensionMovesTheKeysExpiriesAndLaterWritesKeepThem() {
    RecordId id = RecordId.of("t", "kept");
    String member = KeyLayout.member(id);
    FenceToken fence = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
    Duration keptFor = RETENTION.multipliedBy(5);

    store.extendRetention(id, fence, NOW.plus(keptFor), NOW);
    assertExpiries(member, keptFor);
    // the owner's writes set their own, shorter expiries: the record's stays at the extension
    store.heartbeat(id, fence, NOW, Duration.ofHours(1));
    assertPttl(layout.record(member), keptFor);
    store.checkpoint(id, fence, RecoveryPoint.of("p"), NOW, Duration.ofHours(1));
    assertPttl(layout.record(member), keptFor);
    assertThat(store.heartbeatAll(Map.of(id, fence), NOW, Duration.ofHours(1))).isEmpty();
    assertPttl(layout.record(member), keptFor);
    store.complete(id, fence, StoredResponse.ofUtf8(200, "done"), NOW);
    assertPttl(layout.record(member), keptFor);
    // an earlier instant does not shorten it; a later one moves it again
    store.extendRetention(id, fence, NOW.plus(Duration.ofHours(1)), NOW);
    assertPttl(layout.record(member), keptFor);
    store.extendRetention(id, fence, NOW.plus(keptFor.multipliedBy(2)), NOW);
    assertExpiries(member, keptFor.multipliedBy(2));
  }

  @Test
  void theReaperPagesPastManyKeptRecordsToTheExpiredOnes() {
    // 600 kept records, completed before the 3 that are not kept: more than one due page (512)
    for (int i = 0; i < 600; i++) {
      RecordId id = RecordId.of("t", "kept-" + i);
      FenceToken f = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW)).fence();
      store.complete(id, f, StoredResponse.ofUtf8(200, "x"), NOW);
      store.extendRetention(id, f, NOW.plus(RETENTION.multipliedBy(3)), NOW);
    }
    Instant completedLater = NOW.plusSeconds(1);
    for (int i = 0; i < 3; i++) {
      RecordId id = RecordId.of("t", "done-" + i);
      FenceToken f = ((ClaimOutcome.Claimed) OwnRedis.claim(store, id, completedLater)).fence();
      store.complete(id, f, StoredResponse.ofUtf8(200, "x"), completedLater);
    }
    Instant pastRetention = completedLater.plus(RETENTION);
    assertThat(store.deleteExpired(pastRetention, RETENTION, 2)).as("first batch").isEqualTo(2);
    assertThat(store.deleteExpired(pastRetention, RETENTION, 2)).as("the last one").isEqualTo(1);
    assertThat(store.deleteExpired(pastRetention, RETENTION, 2)).isZero();
    assertThat(redis.zcard(layout.completionIndex(0)))
        .as("the kept records' entries")
        .isEqualTo(600);
    Instant pastTheExtension = NOW.plus(RETENTION.multipliedBy(3));
    assertThat(store.deleteExpired(pastTheExtension, RETENTION, 1000)).isEqualTo(600);
  }

  private void assertExpiries(String member, Duration record) {
    assertPttl(layout.record(member), record);
    assertPttl(layout.counter(member), record.plus(RETENTION));
  }

  private void assertPttl(byte[] key, Duration expected) {
    assertThat(redis.pttl(key))
        .as("PTTL of %s", new String(key, StandardCharsets.US_ASCII))
        .isBetween(expected.toMillis() - SLACK_MILLIS, expected.toMillis());
  }

  private long counter(String member) {
    return Long.parseLong(new String(redis.get(layout.counter(member)), StandardCharsets.US_ASCII));
  }

  private long redisClockMicros() {
    List<byte[]> time = redis.time();
    return Long.parseLong(new String(time.get(0), StandardCharsets.US_ASCII)) * 1_000_000L
        + Long.parseLong(new String(time.get(1), StandardCharsets.US_ASCII));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
