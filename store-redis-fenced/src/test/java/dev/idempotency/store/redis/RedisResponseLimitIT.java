package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The largest response the store keeps follows its command timeout, on the shared server: the
 * declared limit stores and replays within the default 2 s, one byte more is refused before
 * anything is written, and so is a 64 MiB response, which the store could write but no claim could
 * read back within the timeout.
 */
class RedisResponseLimitIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");

  private RedisClient client;
  private StatefulRedisConnection<byte[], byte[]> connection;
  private String prefix = "";
  private RedisKeyStore store;

  @BeforeEach
  void connect() {
    client = SharedRedis.client();
    connection = SharedRedis.connect(client);
    prefix = SharedRedis.uniquePrefix("limit");
    store = RedisKeyStore.builder(connection).keyPrefix(prefix).clock(RedisClock.ENGINE).build();
  }

  @AfterEach
  void close() {
    SharedRedis.cleanUp(client, connection, prefix);
  }

  @Test
  void aResponseTooLargeToReplayWithinTheCommandTimeoutIsRefusedBeforeItIsWritten() {
    RecordId id = RecordId.of("t", "64-mib");
    ClaimOutcome.Claimed owner = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);

    StoredResponse huge = StoredResponse.of(200, new byte[64 << 20]);
    assertThatThrownBy(() -> store.complete(id, owner.fence(), huge, NOW))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("larger than the 4194304 bytes the Redis store keeps")
        .hasMessageContaining("commandTimeout of PT2S")
        .hasMessageContaining("Nothing was written");
    assertThat(store.lookup(id).orElseThrow().state()).isEqualTo(KeyState.IN_FLIGHT);
  }

  @Test
  void theDeclaredLimitStoresAndReplaysAndOneByteMoreIsRefused() {
    assertThat(store.maxResponseBytes()).as("2 s at 2 MiB a second").isEqualTo(4L << 20);
    RecordId id = RecordId.of("t", "at-the-limit");
    ClaimOutcome.Claimed owner = (ClaimOutcome.Claimed) OwnRedis.claim(store, id, NOW);

    StoredResponse over = responseOfSize(store.maxResponseBytes() + 1);
    assertThatThrownBy(() -> store.complete(id, owner.fence(), over, NOW))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining(Long.toString(store.maxResponseBytes()));

    StoredResponse largest = responseOfSize(store.maxResponseBytes());
    store.complete(id, owner.fence(), largest, NOW);
    assertThat(OwnRedis.claim(store, id, NOW.plusSeconds(1)))
        .isEqualTo(new ClaimOutcome.Completed(largest, NOW));
  }

  /** A response of {@code size} bytes as {@link StoredResponse#size()} counts: a few headers. */
  private static StoredResponse responseOfSize(long size) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/octet-stream"));
    headers.put("Set-Cookie", List.of("a=1", "b=2"));
    long headerBytes = StoredResponse.of(200, headers, new byte[0]).size();
    return StoredResponse.of(200, headers, new byte[(int) (size - headerBytes)]);
  }
}
