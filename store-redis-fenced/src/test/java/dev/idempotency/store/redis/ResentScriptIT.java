package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A script whose reply is lost after Redis ran it: a TCP proxy ({@link ReplyCutter}) forwards the
 * script, swallows the answer and closes the connection; Lettuce reconnects and writes the script
 * again, so Redis runs it twice. The second run finds the call's own nonce and answers as the
 * first: the claim is the caller's win, the completion and the release are done. Each test checks
 * that the proxy really forwarded the script twice.
 */
class ResentScriptIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");

  private RedisClient client;
  private ReplyCutter cutter;
  private RedisClient throughCutter;
  private StatefulRedisConnection<byte[], byte[]> connection;
  private RedisKeyStore store;
  private String prefix = "";

  @BeforeEach
  void connectThroughTheCutter() throws Exception {
    client = SharedRedis.client();
    cutter = new ReplyCutter(SharedRedis.uri());
    prefix = SharedRedis.uniquePrefix("resent");
    throughCutter = RedisClient.create(cutter.uri());
    connection = throughCutter.connect(ByteArrayCodec.INSTANCE);
    store =
        RedisKeyStore.builder(connection)
            .keyPrefix(prefix)
            .clock(RedisClock.ENGINE)
            .commandTimeout(Duration.ofSeconds(5))
            .build();
    // every script once, so that the EVALSHA the cutter cuts ran (no NOSCRIPT) and the next is
    // the one under test
    RecordId warm = RecordId.of("t", "warm-up");
    ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) OwnRedis.claim(store, warm, NOW);
    store.complete(warm, c.fence(), StoredResponse.ofUtf8(200, "w"), NOW);
    RecordId warm2 = RecordId.of("t", "warm-up-2");
    store.release(warm2, ((ClaimOutcome.Claimed) OwnRedis.claim(store, warm2, NOW)).fence(), NOW);
  }

  @AfterEach
  void close() throws Exception {
    try (StatefulRedisConnection<byte[], byte[]> c = SharedRedis.connect(client)) {
      SharedRedis.deleteAll(c, prefix);
    } finally {
      connection.close();
      throughCutter.shutdown();
      cutter.close();
      client.shutdown();
    }
  }

  @Test
  void aClaimWrittenAgainAfterItsReplyWasLostIsTheCallersWin() {
    RecordId id = RecordId.of("t", "fresh");
    ClaimOutcome.Claimed won = claimLosingTheFirstReply(id, NOW);
    assertThat(won.takeover()).isFalse();
    assertThat(won.generation()).isEqualTo(won.fence());
    assertThat(store.lookup(id).orElseThrow().fence()).isEqualTo(won.fence());
    // another call is another request's claim: the record is in flight
    assertThat(OwnRedis.claim(store, id, NOW)).isInstanceOf(ClaimOutcome.InFlight.class);
  }

  @Test
  void aTakeoverWrittenAgainKeepsItsGenerationAndRecoveryPoint() {
    RecordId id = RecordId.of("t", "taken-over");
    ClaimOutcome.Claimed first = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);
    store.checkpoint(id, first.fence(), RecoveryPoint.of("charged"), NOW, OwnRedis.LEASE);
    Instant later = NOW.plus(OwnRedis.LEASE).plusSeconds(1);

    ClaimOutcome.Claimed won = claimLosingTheFirstReply(id, later);
    assertThat(won.takeover()).isTrue();
    assertThat(won.generation()).isEqualTo(first.fence());
    assertThat(won.resumeFrom()).contains(RecoveryPoint.of("charged"));
    assertThat(store.lookup(id).orElseThrow().fence()).isEqualTo(won.fence());
  }

  @Test
  void aCompletionWrittenAgainIsDone() {
    RecordId id = RecordId.of("t", "completed");
    ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);

    cutter.cutReplyTo("EVALSHA");
    store.complete(id, c.fence(), StoredResponse.ofUtf8(201, "stored"), NOW);

    assertRanTwice();
    assertThat(store.lookup(id).orElseThrow().state()).isEqualTo(KeyState.COMPLETE);
    // a second completion is another call: completion is final (rule 5.2)
    assertThatThrownBy(() -> store.complete(id, c.fence(), StoredResponse.ofUtf8(200, "x"), NOW))
        .isInstanceOf(LeaseLostException.class);
  }

  @Test
  void aReleaseWrittenAgainIsDone() {
    RecordId id = RecordId.of("t", "released");
    ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);

    cutter.cutReplyTo("EVALSHA");
    store.release(id, c.fence(), NOW);

    assertRanTwice();
    assertThat(store.lookup(id)).isEmpty();
    // a second release is another call: the record is absent (rule 3.4)
    assertThatThrownBy(() -> store.release(id, c.fence(), NOW))
        .isInstanceOf(LeaseLostException.class);
  }

  /** A claim whose first reply the cutter loses; it must still be the caller's win. */
  private ClaimOutcome.Claimed claimLosingTheFirstReply(RecordId id, Instant now) {
    cutter.cutReplyTo("EVALSHA");
    ClaimOutcome outcome = OwnRedis.claim(store, id, now);
    assertRanTwice();
    assertThat(outcome).isInstanceOf(ClaimOutcome.Claimed.class);
    return (ClaimOutcome.Claimed) outcome;
  }

  private void assertRanTwice() {
    assertThat(cutter.cuts()).as("replies the cutter lost").isEqualTo(1);
    assertThat(cutter.forwarded()).as("the script, then the same script re-sent").isEqualTo(2);
  }
}
