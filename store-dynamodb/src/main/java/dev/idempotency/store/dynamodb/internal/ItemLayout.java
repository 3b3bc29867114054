package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.RecordId;
import java.time.Duration;
import java.time.Instant;

/**
 * The item of one record: its attribute names and how the partition key and the times are written.
 * One item per {@code (scope, key)}, under a partition key built from both, so records spread over
 * every partition (a partition key of the scope alone would send one scope's traffic to one
 * partition).
 *
 * <p>Names are short because every byte of every name is stored in every item and counted in every
 * capacity unit.
 */
public final class ItemLayout {
  /** The partition key (S): {@link #partitionKey(RecordId)}. The table has no sort key. */
  public static final String PK = "pk";

  /** The scope (S), kept for {@code findAbandoned}'s snapshots. */
  public static final String SCOPE = "scope";

  /** The idempotency key (S). */
  public static final String KEY = "ikey";

  /** The state (S): {@code I} in flight, {@code C} complete, {@code R} released (absent). */
  public static final String STATE = "st";

  /** The request's fingerprint (B). */
  public static final String FINGERPRINT = "fp";

  /** The current fence (N); grows by one with every claim of the item. */
  public static final String FENCE = "fence";

  /**
   * The generation (N): while in flight, the fence of the claim that began the request; once
   * complete or released, the fence the next claim will draw (the current fence plus one), which is
   * the generation of that claim's request since it is necessarily a fresh one.
   */
  public static final String GENERATION = "gen";

  /** The lease's end (N, epoch nanoseconds), while in flight. */
  public static final String LEASE_END = "lease";

  /** The completion time (N, epoch nanoseconds), once complete. */
  public static final String COMPLETED_AT = "done";

  /** The generation the request had when it completed (N); tells its recovery point apart. */
  public static final String COMPLETED_GENERATION = "cgen";

  /** Retention counts from here (N, epoch nanoseconds): the lease's end, completion or release. */
  public static final String RETAIN_FROM = "retain";

  /**
   * DynamoDB's time-to-live attribute (N, epoch seconds): {@code retain + the store's retention}.
   */
  public static final String TTL = "ttl";

  /**
   * The instant an operator asked the record be kept until (N, epoch nanoseconds), once one did:
   * the reaper leaves the item until then.
   */
  public static final String KEEP_UNTIL = "keep";

  /**
   * Present once an operator kept the record longer (S, {@value #HELD_VALUE}): every write copies
   * it into {@link #TTL}, which time to live then ignores.
   */
  public static final String HELD = "held";

  /** {@link #HELD}'s value. */
  public static final String HELD_VALUE = "kept";

  /** The random nonce of the claim that installed the current fence (N). */
  public static final String CLAIM_NONCE = "nonce";

  /**
   * The random nonce of the write that ended the request (N): a completion or release the SDK sent
   * again finds it, and so tells its own earlier attempt from any other ending write.
   */
  public static final String END_NONCE = "endn";

  /** The last recovery point's name (S). */
  public static final String POINT_NAME = "rp";

  /** The last recovery point's data (B), absent when empty. */
  public static final String POINT_DATA = "rpd";

  /** The generation of the request that wrote the recovery point (N). */
  public static final String POINT_GENERATION = "rpg";

  /** The stored response's status (N). */
  public static final String STATUS = "status";

  /** The stored response's headers (L of L of S: the name, then its values), in order. */
  public static final String HEADERS = "hdr";

  /** The stored response's body (B), absent when empty. */
  public static final String BODY = "body";

  /** The in-flight state's value. */
  public static final String IN_FLIGHT = "I";

  /** The complete state's value. */
  public static final String COMPLETE = "C";

  /** The released state's value: the item stays so that its fence survives. */
  public static final String RELEASED = "R";

  private ItemLayout() {}

  /**
   * The partition key of a record: the scope's length, a colon, the scope, a slash and the key (
   * {@code 8:payments/order-17}). The length makes it injective although scopes and keys may both
   * contain slashes and colons: {@code ("a/b", "c")} and {@code ("a", "b/c")} get different keys.
   */
  public static String partitionKey(RecordId id) {
    String scope = id.scope().value();
    return scope.length() + ":" + scope + "/" + id.key().value();
  }

  /**
   * An instant as epoch nanoseconds, saturated to the {@code long} range (years 1677 to 2262), so
   * that a far past or future {@code now} still compares in the right order.
   */
  public static long epochNanos(Instant t) {
    long seconds = t.getEpochSecond();
    if (seconds >= Long.MAX_VALUE / 1_000_000_000L) {
      return Long.MAX_VALUE;
    }
    if (seconds <= Long.MIN_VALUE / 1_000_000_000L) {
      return Long.MIN_VALUE;
    }
    return seconds * 1_000_000_000L + t.getNano();
  }

  /** {@code a + b} in nanoseconds, saturated. */
  public static long plus(long epochNanos, Duration d) {
    long n = d.compareTo(Duration.ofDays(100_000)) > 0 ? Long.MAX_VALUE : d.toNanos();
    long sum = epochNanos + n;
    return ((epochNanos ^ sum) & (n ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  /** {@code a - b} in nanoseconds, saturated. */
  public static long minus(long epochNanos, Duration d) {
    long n = d.compareTo(Duration.ofDays(100_000)) > 0 ? Long.MAX_VALUE : d.toNanos();
    long diff = epochNanos - n;
    return ((epochNanos ^ n) & (epochNanos ^ diff)) < 0 ? Long.MIN_VALUE : diff;
  }

  /** An instant from epoch nanoseconds. */
  public static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }

  /**
   * The time-to-live of an item whose retention counts from {@code retainFrom}: epoch seconds,
   * rounded up, so DynamoDB never deletes an item before its retention ended.
   */
  public static long ttlSeconds(long retainFrom, Duration retention) {
    long end = plus(retainFrom, retention);
    return Math.floorDiv(end, 1_000_000_000L) + (Math.floorMod(end, 1_000_000_000L) == 0 ? 0 : 1);
  }
}
