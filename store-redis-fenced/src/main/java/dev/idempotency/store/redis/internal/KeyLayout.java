package dev.idempotency.store.redis.internal;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * Where a record lives: its Redis keys and its index shard.
 *
 * <p>A record is named by its <em>member</em>, {@code base64url(scope UTF-8) "." base64url(key)}:
 * unambiguous (the alphabet has no dot, so {@code ("a/b", "c")} and {@code ("a", "b/c")} differ),
 * exact (case, trailing spaces, any Unicode) and free of braces, so it never breaks a hash tag. Its
 * keys share one hash tag, that of its shard, with the shard's two indexes:
 *
 * <pre>
 *   &lt;prefix&gt;{s&lt;n&gt;}r:&lt;member&gt;   the record (a hash)
 *   &lt;prefix&gt;{s&lt;n&gt;}f:&lt;member&gt;   its fence counter (a string)
 *   &lt;prefix&gt;{s&lt;n&gt;}x:&lt;member&gt;   its last release's receipt (a string, kept briefly)
 *   &lt;prefix&gt;{s&lt;n&gt;}lease         in-flight members by lease end (a sorted set)
 *   &lt;prefix&gt;{s&lt;n&gt;}done          completed members by completion time (a sorted set)
 * </pre>
 *
 * so that every script touches one Cluster slot. The shard is CRC-32 of the member modulo the
 * number of shards: stable across processes and versions. Immutable.
 */
public final class KeyLayout {
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9:._-]{0,64}");
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private final String prefix;
  private final int shards;

  private KeyLayout(String prefix, int shards) {
    this.prefix = prefix;
    this.shards = shards;
  }

  /**
   * The layout under {@code prefix} with {@code shards} index shards.
   *
   * @throws IllegalArgumentException if the prefix is not up to 64 characters of {@code
   *     [A-Za-z0-9:._-]} or the shard count is not 1 to 16384
   */
  public static KeyLayout of(String prefix, int shards) {
    if (!PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "key prefix must be up to 64 characters of [A-Za-z0-9:._-] (no braces: they would make"
              + " the hash tag), but was \""
              + prefix
              + "\"");
    }
    if (shards < 1 || shards > 16384) {
      throw new IllegalArgumentException(
          "index shards must be 1 to 16384 (Redis Cluster's slot count), but was " + shards);
    }
    return new KeyLayout(prefix, shards);
  }

  /** The number of index shards. */
  public int shards() {
    return shards;
  }

  /** The member that names {@code id} in the indexes and in its keys. */
  public static String member(RecordId id) {
    return ENCODER.encodeToString(id.scope().value().getBytes(StandardCharsets.UTF_8))
        + "."
        + ENCODER.encodeToString(id.key().value().getBytes(StandardCharsets.US_ASCII));
  }

  /** What every member of a scope begins with: the scope's encoded name and the dot. */
  public static String scopePrefix(Scope scope) {
    return ENCODER.encodeToString(scope.value().getBytes(StandardCharsets.UTF_8)) + ".";
  }

  /**
   * The record a member names.
   *
   * @throws KeyStoreException if it is not a member this layout wrote
   */
  public static RecordId idOf(String member) {
    int dot = member.indexOf('.');
    try {
      if (dot < 0) {
        throw new IllegalArgumentException("no dot");
      }
      return new RecordId(
          Scope.of(new String(DECODER.decode(member.substring(0, dot)), StandardCharsets.UTF_8)),
          IdempotencyKey.of(
              new String(DECODER.decode(member.substring(dot + 1)), StandardCharsets.US_ASCII)));
    } catch (IllegalArgumentException e) {
      throw new KeyStoreException(
          "an index of the Redis store holds \""
              + member
              + "\", which is not a record this store wrote: is another application writing under"
              + " the same key prefix?",
          e);
    }
  }

  /** The index shard of a member. */
  public int shardOf(String member) {
    CRC32 crc = new CRC32();
    crc.update(member.getBytes(StandardCharsets.US_ASCII));
    return (int) (crc.getValue() % shards);
  }

  /** The record hash of a member. */
  public byte[] record(String member) {
    return bytes(shardPrefix(shardOf(member)) + "r:" + member);
  }

  /** The fence counter of a member. */
  public byte[] counter(String member) {
    return bytes(shardPrefix(shardOf(member)) + "f:" + member);
  }

  /** The receipt of a member's last release: the nonce of the call, for a re-sent release. */
  public byte[] releaseReceipt(String member) {
    return bytes(shardPrefix(shardOf(member)) + "x:" + member);
  }

  /**
   * The key the store writes on its replica-acknowledgement connection before each {@code WAIT}:
   * {@code WAIT} counts the writes of the connection it is sent on, so the marker, written after
   * the store's own write was answered, stands for it in the replication stream.
   */
  public byte[] replicationMarker() {
    return bytes(prefix + "replicated");
  }

  /** A shard's index of in-flight records by lease end. */
  public byte[] leaseIndex(int shard) {
    return bytes(shardPrefix(shard) + "lease");
  }

  /** A shard's index of completed records by completion time. */
  public byte[] completionIndex(int shard) {
    return bytes(shardPrefix(shard) + "done");
  }

  private String shardPrefix(int shard) {
    return prefix + "{s" + shard + "}";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
