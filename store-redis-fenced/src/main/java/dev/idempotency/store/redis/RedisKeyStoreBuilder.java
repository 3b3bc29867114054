package dev.idempotency.store.redis;

import dev.idempotency.StoreUnavailableException;
import dev.idempotency.store.redis.internal.EvictionPolicy;
import dev.idempotency.store.redis.internal.ResponseLimit;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Configures a {@link RedisKeyStore}: {@link RedisKeyStore#builder(StatefulRedisConnection)} (or
 * its Cluster twin) starts one with every setting at its default. Not thread-safe; {@link #build()}
 * yields the store.
 *
 * <p>A class of its own rather than nested in {@link RedisKeyStore}, so that the store's source is
 * its SPI methods; code that chains {@code RedisKeyStore.builder(connection)...build()} never names
 * it.
 */
public final class RedisKeyStoreBuilder {
  // read by the RedisKeyStore constructor
  final RedisClusterAsyncCommands<byte[], byte[]> commands;
  String keyPrefix = RedisKeyStore.DEFAULT_KEY_PREFIX;
  int indexShards;
  RedisClock clock = RedisClock.SERVER;
  Duration commandTimeout = RedisKeyStore.DEFAULT_COMMAND_TIMEOUT;
  Duration retention = RedisKeyStore.DEFAULT_RETENTION;
  long maxResponseBytes; // 0: what the command timeout allows
  int waitReplicas;
  Duration waitTimeout = Duration.ZERO;
  @Nullable StatefulRedisConnection<byte[], byte[]> replicaAcks;
  private final Object connection;
  private final boolean cluster;
  private boolean requireNoEviction = true;

  RedisKeyStoreBuilder(
      RedisClusterAsyncCommands<byte[], byte[]> commands, Object connection, boolean cluster) {
    this.commands = commands;
    this.connection = connection;
    this.cluster = cluster;
    this.indexShards = cluster ? 64 : 1;
  }

  /**
   * What every key of the store starts with; default {@code idem:}. Up to 64 characters of {@code
   * [A-Za-z0-9:._-]}. Two stores (or a store and anything else) must not share one.
   */
  public RedisKeyStoreBuilder keyPrefix(String keyPrefix) {
    this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
    return this;
  }

  /**
   * How many index shards the records are spread over; default 1 on a standalone connection, 64 on
   * a Cluster. A record, its fence counter and its shard's two indexes share one hash tag, so in a
   * Cluster the records of one shard live in one slot: shards spread them over nodes, and the
   * reaper and {@code findAbandoned} pay one script per shard. Fixed for the life of the data, like
   * a table name: a store with another count looks for records in other keys.
   *
   * @throws IllegalArgumentException if not 1 to 16384
   */
  public RedisKeyStoreBuilder indexShards(int shards) {
    if (shards < 1 || shards > 16384) {
      throw new IllegalArgumentException("indexShards must be 1 to 16384, but was " + shards);
    }
    this.indexShards = shards;
    return this;
  }

  /** Whose clock judges leases and windows; default {@link RedisClock#SERVER}. */
  public RedisKeyStoreBuilder clock(RedisClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * How long any one command may take before the call throws {@link StoreUnavailableException};
   * default 2 s. Keep it well below the engine's lease and its {@code leaseSafetyMargin()} (5 s): a
   * renewal that waits longer leaves every lease of the instance unconfirmed. Connecting is the
   * connection's own business: give the client a connect timeout below the lease too ({@code
   * SocketOptions.connectTimeout}, 10 s by default in Lettuce).
   *
   * @throws IllegalArgumentException if not positive
   */
  public RedisKeyStoreBuilder commandTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "commandTimeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("commandTimeout must be > 0, but was " + timeout);
    }
    this.commandTimeout = timeout;
    return this;
  }

  /**
   * The engine's retention (72 h by default, as the engine's): the backstop key expiry of every
   * record (its lease plus this while in flight, this once complete), and of each fence counter (a
   * retention longer than its record), so that records nobody reaps do not stay forever. Set it to
   * the engine's {@code retention}, never shorter: a key expiry shorter than the retention would
   * forget a record before the reaper may.
   *
   * @throws IllegalArgumentException if not at least one millisecond
   */
  public RedisKeyStoreBuilder retention(Duration retention) {
    Objects.requireNonNull(retention, "retention");
    if (retention.toMillis() < 1) {
      throw new IllegalArgumentException("retention must be at least 1 ms, but was " + retention);
    }
    this.retention = retention;
    return this;
  }

  /**
   * Whether {@link #build()} refuses a server that may evict the store's keys; default true. It
   * reads {@code maxmemory_policy} ({@code INFO memory}) from the primary, or every primary of a
   * Cluster, and refuses any policy but {@code noeviction}: every record and fence counter has an
   * expiry and the index sets have none, so each other policy can drop one of them once {@code
   * maxmemory} is reached. Turn it off only for a server that refuses {@code INFO} to the store's
   * user, once you made sure its policy is {@code noeviction}.
   */
  public RedisKeyStoreBuilder requireNoEviction(boolean require) {
    this.requireNoEviction = require;
    return this;
  }

  /**
   * The largest response the store keeps ({@link RedisKeyStore#maxResponseBytes()}); by default
   * what it can write and replay within the {@link #commandTimeout}, counting on 2 MiB a second (4
   * MiB with the default 2 s). A smaller limit bounds what any one record costs in Redis' memory; a
   * larger one is refused by {@link #build()}.
   *
   * @throws IllegalArgumentException if not positive
   */
  public RedisKeyStoreBuilder maxResponseBytes(long bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("maxResponseBytes must be > 0, but was " + bytes);
    }
    this.maxResponseBytes = bytes;
    return this;
  }

  /**
   * After every write, requires {@code replicas} replicas to have acknowledged it within {@code
   * timeout} ({@code WAIT replicas timeout}, sent on {@code acknowledgements}); a write fewer
   * acknowledged throws {@link StoreUnavailableException}. A claim so reported is withdrawn first
   * (best effort: a fresh claim is undone, a takeover's lease ended), so that its retry can claim
   * again; a completion, checkpoint or release so reported stands on the primary. This narrows, and
   * does not close, the window in which a failover loses an acknowledged claim: {@code
   * docs/stores-redis.md} says what remains and what it costs. Standalone or Sentinel connections
   * only.
   *
   * <p>{@code acknowledgements} is a second connection to the same primary, used for nothing else
   * (the store never closes it): {@code WAIT} blocks the connection it is sent on until the
   * replicas answer or the timeout ends, and Redis reads no other command from that connection
   * meanwhile, so on the store's connection every claim and renewal would queue behind it. {@code
   * WAIT} counts the writes of its own connection, so before each the store writes a marker key
   * ({@code <prefix>replicated}) there, after its own write was answered.
   *
   * @throws IllegalArgumentException if {@code replicas} is not positive or the timeout is not at
   *     least one millisecond
   * @throws NullPointerException if an argument is null
   */
  public RedisKeyStoreBuilder waitForReplicas(
      int replicas, Duration timeout, StatefulRedisConnection<byte[], byte[]> acknowledgements) {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(acknowledgements, "acknowledgements");
    if (replicas < 1 || timeout.toMillis() < 1) {
      throw new IllegalArgumentException(
          "waitForReplicas needs at least 1 replica and 1 ms, but was "
              + replicas
              + " and "
              + timeout);
    }
    this.waitReplicas = replicas;
    this.waitTimeout = timeout;
    this.replicaAcks = acknowledgements;
    return this;
  }

  /**
   * Builds the store. It reads the server's eviction policy ({@link #requireNoEviction}), within
   * the command timeout or 5 s if that is longer; scripts are loaded on first use.
   *
   * @throws IllegalArgumentException if the key prefix breaks its rule
   * @throws IllegalStateException if {@link #maxResponseBytes} is larger than the store can replay
   *     within the {@link #commandTimeout}, or {@link #waitForReplicas} was set on a Cluster
   *     connection (Lettuce does not send {@code WAIT} to the node that took the write), with the
   *     store's own connection as the acknowledgement connection, or with a timeout not shorter
   *     than the command timeout (the wait would be cut off before Redis answers)
   */
  public RedisKeyStore build() {
    if (maxResponseBytes > ResponseLimit.forTimeout(commandTimeout)) {
      throw new IllegalStateException(
          ResponseLimit.tooLargeForTimeout(maxResponseBytes, commandTimeout));
    }
    if (waitReplicas > 0) {
      if (cluster) {
        throw new IllegalStateException(
            "waitForReplicas needs a standalone or Sentinel connection: on a Cluster connection"
                + " WAIT would not go to the node that took the write");
      }
      if (replicaAcks == connection) {
        throw new IllegalStateException(
            "waitForReplicas needs a connection of its own: WAIT blocks the connection it is"
                + " sent on, and every claim and renewal on it would wait behind it");
      }
      if (waitTimeout.compareTo(commandTimeout) >= 0) {
        throw new IllegalStateException(
            "the timeout of waitForReplicas ("
                + waitTimeout
                + ") must be shorter than the command timeout ("
                + commandTimeout
                + "), which bounds the wait for WAIT's answer");
      }
    }
    if (requireNoEviction) {
      EvictionPolicy.requireNoEviction(connection, commandTimeout);
    }
    return new RedisKeyStore(this);
  }
}
