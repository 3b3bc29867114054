package dev.idempotency.store.redis.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoredResponse;
import java.time.Duration;

/**
 * The largest response the store keeps: what it can write, and a claim can read back, within one
 * command timeout. Redis has no record size of its own below {@code proto-max-bulk-len} (512 MiB by
 * default); what bounds a response is time: a completion sends it in one script, a replay receives
 * it in one reply, each within the command timeout, and a response the claim cannot receive in time
 * is never replayed (every retry is told the store is unavailable). Stateless.
 */
public final class ResponseLimit {
  /**
   * The bytes of a response the store counts on moving per second of its command timeout: 2 MiB.
   * Measured on loopback with two cores under other builds' load (load average 11), with a test
   * JVM's C1 compiler only: 4 MiB replayed in 0.27 to 0.54 s, 8 MiB in 0.39 to 0.93 s, 64 MiB in
   * 2.4 to 12.9 s (5 to 15 MiB a second); with the default compilers and less load, 64 MiB in 1.2
   * to 3.0 s (21 to 55 MiB a second). A network and the rest of the call's budget take their share,
   * so the store counts on well under half of the slowest.
   */
  public static final long BYTES_PER_SECOND = 2L << 20;

  /** Redis' default {@code proto-max-bulk-len}: the largest argument a server takes. */
  public static final long REDIS_BULK_LIMIT = 512L << 20;

  private ResponseLimit() {}

  /** What the store can move within {@code commandTimeout}: 2 MiB a second, at most 512 MiB. */
  public static long forTimeout(Duration commandTimeout) {
    long millis =
        commandTimeout.compareTo(Duration.ofDays(1)) > 0 ? 86_400_000 : commandTimeout.toMillis();
    return Math.min(REDIS_BULK_LIMIT, millis * BYTES_PER_SECOND / 1000);
  }

  /** Why a limit of {@code bytes} is refused with {@code commandTimeout}, and what to change. */
  public static String tooLargeForTimeout(long bytes, Duration commandTimeout) {
    String fix =
        bytes > REDIS_BULK_LIMIT
            ? "Lower maxResponseBytes to at most 512 MiB (Redis' proto-max-bulk-len)"
            : "Lower maxResponseBytes, or raise commandTimeout to at least "
                + Duration.ofMillis((bytes * 1000 + BYTES_PER_SECOND - 1) / BYTES_PER_SECOND);
    return "maxResponseBytes ("
        + bytes
        + ") is larger than the "
        + forTimeout(commandTimeout)
        + " bytes the Redis store can replay within its commandTimeout ("
        + commandTimeout
        + ", at 2 MiB a second): a completed response that large could not be read back in"
        + " time, and every retry would be told the store is unavailable. "
        + fix;
  }

  /**
   * Refuses {@code response}, before anything is sent, if it is larger than {@code limit}.
   *
   * @throws KeyStoreException naming the limit and the command timeout
   */
  public static void check(StoredResponse response, long limit, Duration commandTimeout) {
    long size = response.size();
    if (size > limit) {
      throw new KeyStoreException(
          "a response of "
              + size
              + " bytes (body plus header names and values) is larger than the "
              + limit
              + " bytes the Redis store keeps (maxResponseBytes(): at most what it can replay within"
              + " its commandTimeout of "
              + commandTimeout
              + " at 2 MiB a second). Nothing was written; keep the binding's stored-response"
              + " limit at most that, so that a larger response is stored as its not-stored"
              + " marker, or raise RedisKeyStoreBuilder.commandTimeout");
    }
  }
}
