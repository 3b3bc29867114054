package dev.idempotency.store.redis;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.store.redis.internal.IndexShardCalls;
import dev.idempotency.store.redis.internal.KeyLayout;
import dev.idempotency.store.redis.internal.Micros;
import dev.idempotency.store.redis.internal.RecordCalls;
import dev.idempotency.store.redis.internal.RedisCalls;
import dev.idempotency.store.redis.internal.ResponseLimit;
import dev.idempotency.store.redis.internal.ShardListing;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link KeyStore} on Redis: every claim, heartbeat, checkpoint, completion and release is one
 * Lua script, which Redis runs alone, so each decision is atomic; every claim takes the next value
 * of a per-key fence counter that outlives the record, and every later write compares the fence.
 *
 * <pre>{@code
 * RedisClient client = RedisClient.create("redis://redis.internal:6379");
 * StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
 * RedisKeyStore store = RedisKeyStore.builder(connection)   // a connection for the store alone
 *     .keyPrefix("idem:")                                  // the default
 *     .build();
 * }</pre>
 *
 * <p>The connection stays the application's: the store never closes it, and Lettuce multiplexes it
 * over every thread, so one is enough. Give the store one of its own: on a shared connection
 * another thread's {@code MULTI} would queue the store's scripts into its transaction, a blocking
 * command ({@code BLPOP}, {@code WAIT}) would stall every script behind it, renewals included, and
 * {@code setAutoFlushCommands(false)} would hold them unsent. On a connection that reads from
 * replicas the store still reads records on the primary: it reads them by script. What Redis cannot
 * promise (an acknowledged claim lost in a failover of asynchronous replication; records lost in a
 * restart without persistence) and what {@link RedisKeyStoreBuilder#waitForReplicas} changes about
 * it: {@code docs/stores-redis.md}. Fencing protects only what checks the fence: guard downstream
 * writes with it ({@code dev.idempotency.core.FenceChecker} of idempotency-core in one process).
 *
 * <p>Thread-safe and immutable.
 */
public final class RedisKeyStore implements KeyStore {
  /** The default of {@link RedisKeyStoreBuilder#commandTimeout}. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  /** The default of {@link RedisKeyStoreBuilder#retention}: the engine's default retention. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(3);

  /** The default of {@link RedisKeyStoreBuilder#keyPrefix}. */
  public static final String DEFAULT_KEY_PREFIX = "idem:";

  /** The scripts' {@code now} argument when Redis' clock judges. */
  private static final byte[] SERVER_NOW = new byte[0];

  private final RedisCalls calls;
  private final RecordCalls records;
  private final IndexShardCalls shardCalls;
  private final ShardListing listing;
  private final KeyLayout layout;
  private final RedisClock clock;
  private final Duration retention;
  private final int waitReplicas;
  private final Duration waitTimeout;
  private final Duration commandTimeout;
  private final long maxResponseBytes;
  private final Set<StoreCapability> capabilities;

  RedisKeyStore(RedisKeyStoreBuilder b) {
    this.calls =
        new RedisCalls(
            b.commands, b.replicaAcks == null ? null : b.replicaAcks.async(), b.commandTimeout);
    this.layout = KeyLayout.of(b.keyPrefix, b.indexShards);
    this.records = new RecordCalls(calls, layout, b.retention, b.commandTimeout);
    this.shardCalls = new IndexShardCalls(calls, layout);
    this.listing = new ShardListing(calls, layout);
    this.clock = b.clock;
    this.retention = b.retention;
    this.waitReplicas = b.waitReplicas;
    this.waitTimeout = b.waitTimeout;
    this.commandTimeout = b.commandTimeout;
    this.maxResponseBytes =
        b.maxResponseBytes > 0 ? b.maxResponseBytes : ResponseLimit.forTimeout(b.commandTimeout);
    this.capabilities =
        clock == RedisClock.SERVER
            ? Set.of(
                StoreCapability.SHARED,
                StoreCapability.SERVER_CLOCK,
                StoreCapability.LISTING,
                StoreCapability.EXTEND_RETENTION)
            : Set.of(
                StoreCapability.SHARED, StoreCapability.LISTING, StoreCapability.EXTEND_RETENTION);
  }

  /**
   * Starts a builder over a standalone (or Sentinel-managed) connection with the byte-array codec
   * ({@code client.connect(ByteArrayCodec.INSTANCE)}). Give the store a connection of its own: see
   * the class comment.
   *
   * @throws NullPointerException if {@code connection} is null
   */
  public static RedisKeyStoreBuilder builder(StatefulRedisConnection<byte[], byte[]> connection) {
    Objects.requireNonNull(connection, "connection");
    return new RedisKeyStoreBuilder(connection.async(), connection, false);
  }

  /**
   * Starts a builder over a Redis Cluster connection with the byte-array codec. Records spread over
   * as many slots as there are {@linkplain RedisKeyStoreBuilder#indexShards index shards} (64 by
   * default here).
   *
   * @throws NullPointerException if {@code connection} is null
   */
  public static RedisKeyStoreBuilder builder(
      StatefulRedisClusterConnection<byte[], byte[]> connection) {
    Objects.requireNonNull(connection, "connection");
    return new RedisKeyStoreBuilder(connection.async(), connection, true);
  }

  /** The clock that judges leases and windows. */
  public RedisClock clock() {
    return clock;
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return capabilities;
  }

  /**
   * {@inheritDoc}
   *
   * <p>What the store can write and replay within its {@link RedisKeyStoreBuilder#commandTimeout},
   * counting on 2 MiB a second (4 MiB with the default 2 s), or the smaller {@link
   * RedisKeyStoreBuilder#maxResponseBytes}: a completion sends the response in one script and a
   * replay receives it in one reply, each within the command timeout, and a response a claim cannot
   * receive in time would never be replayed.
   */
  @Override
  public long maxResponseBytes() {
    return maxResponseBytes;
  }

  /**
   * {@inheritDoc}
   *
   * @throws KeyStoreException if the request's replay window is longer than the store's {@link
   *     RedisKeyStoreBuilder#retention}: a completed record's key expires after the retention, so a
   *     retry later in the window would execute again
   */
  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    if (request.replayWindow().compareTo(retention) > 0) {
      throw new KeyStoreException(
          "the replay window "
              + request.replayWindow()
              + " of the claim of "
              + request.id()
              + " is longer than the Redis store's retention "
              + retention
              + " (RedisKeyStoreBuilder.retention): a completed record's key expires after the"
              + " retention, and a retry later in the window would execute again; set the store's"
              + " retention to the engine's, at least the window");
    }
    long lease = Micros.of(request.lease());
    byte[] at = now(request.now());
    ClaimOutcome outcome = records.claim(request, at, lease);
    if (outcome instanceof ClaimOutcome.Claimed claimed) {
      try {
        awaitReplicas("claim of " + request.id());
      } catch (StoreUnavailableException e) {
        withdraw(request.id(), claimed.fence(), at, lease, e);
        throw e;
      }
    }
    return outcome;
  }

  /**
   * A claim about to be reported as {@link StoreUnavailableException} ("nothing was decided")
   * because its replicas did not confirm it must not stand on the primary: the retry would find it
   * in flight for a whole lease, and then fail the same way. Under the fence just drawn, a fresh
   * claim is undone and a takeover's lease ended; best effort, as Redis may be failing.
   */
  private void withdraw(
      RecordId id, FenceToken fence, byte[] at, long lease, StoreUnavailableException failure) {
    try {
      records.withdraw(id, fence, at, lease);
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    IndexShardCalls.Renewals renewals = renew(Map.of(id, fence), now, lease);
    if (!renewals.failures().isEmpty()) {
      throw renewals.failures().get(0);
    }
    String why = renewals.refused().get(id);
    if (why != null) {
      throw new LeaseLostException(id, fence, why);
    }
  }

  /**
   * One script per index shard, of up to 256 leases each, all sent before the first reply is
   * awaited: one round trip for an instance's every lease in a standalone store. Every shard's
   * reply is awaited within the command timeout, so one shard that does not answer (a Cluster node
   * down) does not hide what the others did.
   *
   * @throws PartialRenewalException if some shards did not answer: which leases were renewed,
   *     refused and unknown
   * @throws KeyStoreException if a shard refused its script for another reason than an outage (a
   *     key of another type under the prefix), after every shard was awaited
   */
  @Override
  public Set<RecordId> heartbeatAll(Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    Objects.requireNonNull(leases, "leases");
    leases.forEach(
        (id, fence) -> {
          Objects.requireNonNull(id, "leases: a record id");
          Objects.requireNonNull(fence, "leases: the fence of " + id);
        });
    IndexShardCalls.Renewals renewals = renew(leases, now, lease);
    if (!renewals.failures().isEmpty()) {
      throw PartialRenewalException.of(leases.keySet(), renewals);
    }
    return Set.copyOf(renewals.refused().keySet());
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(point, "point");
    long us = positive(lease, "lease");
    requireFenced(id, fence);
    records.checkpoint(id, fence, point, now(now), us);
    awaitReplicas("checkpoint of " + id);
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(response, "response");
    ResponseLimit.check(response, maxResponseBytes, commandTimeout);
    requireFenced(id, fence);
    records.complete(id, fence, response, now(now));
    awaitReplicas("complete of " + id);
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    requireFenced(id, fence);
    records.release(id, fence, now(now));
    awaitReplicas("release of " + id);
  }

  /**
   * One script: the record's field {@code k} (the later instant wins), which the reaper honours,
   * and its key's and fence counter's expiries moved past it; see {@code docs/stores-redis.md}.
   */
  @Override
  public void extendRetention(RecordId id, FenceToken fence, Instant keepUntil, Instant now) {
    requireFenced(id, fence);
    Objects.requireNonNull(keepUntil, "keepUntil");
    records.extendRetention(id, fence, now(now), Micros.of(keepUntil));
    awaitReplicas("extension of " + id);
  }

  /** Read by a script, so that it runs on the primary even on a connection that reads replicas. */
  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    return records.lookup(id);
  }

  /**
   * Per index shard, the due entries of its lease index and then their records, every shard's
   * script of a round sent at once; merged by lease end. Each shard looks at no more than {@code 10
   * * limit + 100} index entries.
   */
  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    byte[] at = now(now);
    positiveLimit(limit);
    return shardCalls.abandoned(at, limit);
  }

  /**
   * Over the shards' lease and completion indexes, shard by shard, each in its order (lease end or
   * completion time): see {@code docs/stores-redis.md}, "Listing records".
   */
  @Override
  public RecordPage list(RecordQuery query) {
    Objects.requireNonNull(query, "query");
    return listing.list(query, now(query.now()));
  }

  /**
   * Per index shard in turn, batches of due candidates (at most 512 per script), each re-checked
   * and deleted by a script, until {@code limit} records are deleted or none is left; index entries
   * whose record already expired are dropped without counting.
   */
  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    byte[] at = now(now);
    long us = positive(retention, "retention");
    positiveLimit(limit);
    return shardCalls.reap(at, us, limit);
  }

  @Override
  public String toString() {
    return "RedisKeyStore[clock=" + clock + ", shards=" + layout.shards() + "]";
  }

  /** What the renewal of {@code leases} found, per lease; replicas awaited for what it renewed. */
  private IndexShardCalls.Renewals renew(
      Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    byte[] at = now(now);
    long us = positive(lease, "lease");
    IndexShardCalls.Renewals renewals =
        shardCalls.renew(
            leases, at, us, records.inFlightExpiryMillis(us), records.counterExpiryMillis(us));
    if (renewals.refused().size() + renewals.unknown().size() < leases.size()) {
      awaitReplicas("renewal of " + leases.size() + " leases");
    }
    return renewals;
  }

  /**
   * With {@link RedisKeyStoreBuilder#waitForReplicas}: {@code WAIT} on the store's acknowledgement
   * connection, and a write fewer replicas acknowledged is reported as {@link
   * StoreUnavailableException}.
   */
  private void awaitReplicas(String what) {
    if (waitReplicas == 0) {
      return;
    }
    long acked = calls.awaitReplicas(what, layout.replicationMarker(), waitReplicas, waitTimeout);
    if (acked < waitReplicas) {
      throw new StoreUnavailableException(
          what
              + " was acknowledged by "
              + acked
              + " of the "
              + waitReplicas
              + " replicas required within "
              + waitTimeout
              + "; a failover now could lose it");
    }
  }

  private static void requireFenced(RecordId id, FenceToken fence) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
  }

  private byte[] now(Instant now) {
    Objects.requireNonNull(now, "now");
    return clock == RedisClock.SERVER ? SERVER_NOW : RedisCalls.number(Micros.of(now));
  }

  private static long positive(Duration d, String name) {
    if (Objects.requireNonNull(d, name).isNegative() || d.isZero()) {
      throw notPositive(name, d);
    }
    return Micros.of(d);
  }

  private static void positiveLimit(int limit) {
    if (limit <= 0) {
      throw notPositive("limit", limit);
    }
  }

  private static IllegalArgumentException notPositive(String name, Object value) {
    return new IllegalArgumentException(name + " must be > 0, but was " + value);
  }
}
