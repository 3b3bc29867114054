package dev.idempotency.benchmarks;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.store.redis.RedisKeyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Redis memory per record of {@code RedisKeyStore}, by {@code MEMORY USAGE … SAMPLES 0} of each key
 * (exact per key, and untouched by anything else the server holds): a completed record with the
 * benchmarks' response (a 37-byte JSON body, no headers) and the same with a 1 KiB body and three
 * headers, its fence counter, and the growth of the completion index per record. Runs against
 * {@code IDEMPOTENCY_TEST_REDIS_URL} under a key prefix of its own, deleted afterwards.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.idempotency.benchmarks.RedisMemoryFootprint 10000
 * }</pre>
 */
public final class RedisMemoryFootprint {
  private RedisMemoryFootprint() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    String prefix = "mem-" + ProcessHandle.current().pid() + ":";
    RedisClient client = RedisClient.create(System.getenv("IDEMPOTENCY_TEST_REDIS_URL"));
    try (StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE)) {
      RedisKeyStore store = RedisKeyStore.builder(c).keyPrefix(prefix).build();
      RedisCommands<byte[], byte[]> sync = c.sync();
      StoredResponse small = AbstractStoreBenchmark.RESPONSE;
      StoredResponse large =
          StoredResponse.of(
              201,
              Map.of(
                  "Content-Type", List.of("application/json"),
                  "Location", List.of("/payments/pay_1234567890"),
                  "X-Request-Id", List.of("7d9c1f3e-2b4a-4c8e-9f10-123456789abc")),
              new byte[1024]);
      long indexBefore = 0;
      for (int i = 0; i < n; i++) {
        complete(store, "k" + i, i % 2 == 0 ? small : large);
        if (i == 0) {
          indexBefore = usage(sync, prefix + "{s0}done");
        }
      }
      long index = usage(sync, prefix + "{s0}done") - indexBefore;
      String k0 = memberKey("k0");
      String k1 = memberKey("k1");
      System.out.printf(
          "records: %d completed (key prefix \"%s\", 1 index shard, Redis %s)%n",
          n, prefix, info(sync));
      System.out.printf(
          "record hash, 37-byte body, no headers: %d bytes%n", usage(sync, prefix + "{s0}r:" + k0));
      System.out.printf(
          "record hash, 1 KiB body, 3 headers:    %d bytes%n", usage(sync, prefix + "{s0}r:" + k1));
      System.out.printf(
          "fence counter:                         %d bytes%n", usage(sync, prefix + "{s0}f:" + k0));
      System.out.printf(
          "completion index, per record:          %.1f bytes (%d over %d records)%n",
          (double) index / (n - 1), index, n - 1);
      RedisFixture.deleteUnder(c, prefix);
    } finally {
      client.shutdown();
    }
  }

  private static void complete(RedisKeyStore store, String key, StoredResponse response) {
    RecordId id = RecordId.of("account-42", key);
    Instant now = Instant.now();
    ClaimOutcome.Claimed c =
        (ClaimOutcome.Claimed)
            store.claim(
                new ClaimRequest(
                    id,
                    Fingerprint.of(AbstractStoreBenchmark.FINGERPRINT),
                    now,
                    Duration.ofSeconds(30),
                    Duration.ofHours(24)));
    store.complete(id, c.fence(), response, now);
  }

  /** The member of a key of scope {@code account-42}: base64url(scope) "." base64url(key). */
  private static String memberKey(String key) {
    java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("account-42".getBytes(StandardCharsets.UTF_8))
        + "."
        + b64.encodeToString(key.getBytes(StandardCharsets.US_ASCII));
  }

  /** {@code MEMORY USAGE key SAMPLES 0}: every field counted, not a sample of five. */
  private static long usage(RedisCommands<byte[], byte[]> sync, String key) {
    Long bytes =
        sync.eval(
            "return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')",
            io.lettuce.core.ScriptOutputType.INTEGER,
            key.getBytes(StandardCharsets.US_ASCII));
    return bytes == null ? 0 : bytes;
  }

  private static String info(RedisCommands<byte[], byte[]> sync) {
    return sync.info("server")
        .lines()
        .filter(l -> l.startsWith("redis_version:"))
        .map(l -> l.substring("redis_version:".length()))
        .findFirst()
        .orElse("?");
  }
}
