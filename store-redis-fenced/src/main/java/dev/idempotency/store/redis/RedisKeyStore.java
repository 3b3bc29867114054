package dev.idempotency.store.redis;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.KeyStoreException;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.StoreUnavailableException;
import dev.idempotency.store.redis.internal.CallNonce;
import dev.idempotency.store.redis.internal.HeaderLines;
import dev.idempotency.store.redis.internal.IndexShardCalls;
import dev.idempotency.store.redis.internal.KeyLayout;
import dev.idempotency.store.redis.internal.Micros;
import dev.idempotency.store.redis.internal.RedisCalls;
import dev.idempotency.store.redis.internal.Replies;
import dev.idempotency.store.redis.internal.Script;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

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
 * restart without persistence) and what {@link Builder#waitForReplicas} changes about it: {@code
 * docs/stores-redis.md}. Fencing protects only what checks the fence: guard downstream writes with
 * it ({@link FenceChecker}).
 *
 * <p>Thread-safe and immutable.
 *
 * <p>One class of about 620 lines, about 230 of them the nested builder and its javadoc: the public
 * store, its builder (nested so that {@code RedisKeyStore.Builder} is the API, as {@code
 * JdbcKeyStore.Builder} is) and the SPI methods, each a few lines over {@code internal.RedisCalls},
 * {@code internal.IndexShardCalls} and the scripts. The builder is the seam, should it grow.
 */
public final class RedisKeyStore implements KeyStore {
  /** The default of {@link Builder#commandTimeout}. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  /** The default of {@link Builder#retention}: the engine's default retention. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(3);

  /** The default of {@link Builder#keyPrefix}. */
  public static final String DEFAULT_KEY_PREFIX = "idem:";

  /**
   * How long a release's receipt stays beyond the command timeout: a client re-sends a command only
   * while its caller still waits for it (at most the command timeout), so a minute more covers the
   * re-sent command's way to the server.
   */
  private static final long RECEIPT_MARGIN_MILLIS = 60_000;

  private static final byte[] SERVER_NOW = new byte[0];

  private final RedisCalls calls;
  private final IndexShardCalls shardCalls;
  private final KeyLayout layout;
  private final RedisClock clock;
  private final Duration retention;
  private final long retentionMillis;
  private final long receiptMillis;
  private final int waitReplicas;
  private final Duration waitTimeout;
  private final Set<StoreCapability> capabilities;

  private RedisKeyStore(Builder b) {
    this.calls =
        new RedisCalls(
            b.commands, b.replicaAcks == null ? null : b.replicaAcks.async(), b.commandTimeout);
    this.layout = KeyLayout.of(b.keyPrefix, b.indexShards);
    this.shardCalls = new IndexShardCalls(calls, layout);
    this.clock = b.clock;
    this.retention = b.retention;
    this.retentionMillis = b.retention.toMillis();
    this.receiptMillis = b.commandTimeout.toMillis() + RECEIPT_MARGIN_MILLIS;
    this.waitReplicas = b.waitReplicas;
    this.waitTimeout = b.waitTimeout;
    this.capabilities =
        clock == RedisClock.SERVER
            ? Set.of(StoreCapability.SHARED, StoreCapability.SERVER_CLOCK)
            : Set.of(StoreCapability.SHARED);
  }

  /**
   * Starts a builder over a standalone (or Sentinel-managed) connection with the byte-array codec
   * ({@code client.connect(ByteArrayCodec.INSTANCE)}). Give the store a connection of its own: see
   * the class comment.
   *
   * @throws NullPointerException if {@code connection} is null
   */
  public static Builder builder(StatefulRedisConnection<byte[], byte[]> connection) {
    Objects.requireNonNull(connection, "connection");
    return new Builder(connection.async(), connection, false);
  }

  /**
   * Starts a builder over a Redis Cluster connection with the byte-array codec. Records spread over
   * as many slots as there are {@linkplain Builder#indexShards index shards} (64 by default here).
   *
   * @throws NullPointerException if {@code connection} is null
   */
  public static Builder builder(StatefulRedisClusterConnection<byte[], byte[]> connection) {
    Objects.requireNonNull(connection, "connection");
    return new Builder(connection.async(), connection, true);
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
   * @throws KeyStoreException if the request's replay window is longer than the store's {@link
   *     Builder#retention}: a completed record's key expires after the retention, so a retry later
   *     in the window would execute again
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
              + " (RedisKeyStore.Builder.retention): a completed record's key expires after the"
              + " retention, and a retry later in the window would execute again; set the store's"
              + " retention to the engine's, at least the window");
    }
    String member = KeyLayout.member(request.id());
    int shard = layout.shardOf(member);
    long lease = Micros.of(request.lease());
    String what = "claim of " + request.id();
    List<Object> reply =
        calls.script(
            what,
            Script.CLAIM,
            keys(
                layout.record(member),
                layout.counter(member),
                layout.leaseIndex(shard),
                layout.completionIndex(shard)),
            now(request.now()),
            ascii(member),
            request.fingerprint().bytes(),
            number(lease),
            number(Micros.of(request.replayWindow())),
            number(inFlightExpiryMillis(lease)),
            number(counterExpiryMillis(lease)),
            CallNonce.next());
    ClaimOutcome outcome = Replies.claimOutcome(reply);
    if (outcome instanceof ClaimOutcome.Claimed claimed) {
      try {
        awaitReplicas(what);
      } catch (StoreUnavailableException e) {
        withdraw(request, member, claimed.fence(), e);
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
      ClaimRequest request, String member, FenceToken fence, StoreUnavailableException failure) {
    try {
      calls.script(
          "withdrawal of the claim of " + request.id(),
          Script.WITHDRAW,
          keys(
              layout.record(member),
              layout.counter(member),
              layout.leaseIndex(layout.shardOf(member))),
          now(request.now()),
          ascii(member),
          number(fence.value()),
          number(counterExpiryMillis(Micros.of(request.lease()))));
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    String why = renew(Map.of(id, fence), now, lease).get(id);
    if (why != null) {
      throw new LeaseLostException(id, fence, why);
    }
  }

  /**
   * One script per index shard, of up to 256 leases each, all sent before the first reply is
   * awaited: one round trip for an instance's every lease in a standalone store.
   */
  @Override
  public Set<RecordId> heartbeatAll(Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    Objects.requireNonNull(leases, "leases");
    leases.forEach(
        (id, fence) -> {
          Objects.requireNonNull(id, "leases: a record id");
          Objects.requireNonNull(fence, "leases: the fence of " + id);
        });
    return Set.copyOf(renew(leases, now, lease).keySet());
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(point, "point");
    long us = positive(lease, "lease");
    String member = fencedMember(id, fence);
    fenced(
        "checkpoint",
        id,
        fence,
        Script.CHECKPOINT,
        keys(
            layout.record(member),
            layout.leaseIndex(layout.shardOf(member)),
            layout.counter(member)),
        now(now),
        ascii(member),
        number(fence.value()),
        number(us),
        number(inFlightExpiryMillis(us)),
        ascii(point.name()),
        point.data(),
        number(counterExpiryMillis(us)));
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(response, "response");
    String member = fencedMember(id, fence);
    int shard = layout.shardOf(member);
    fenced(
        "complete",
        id,
        fence,
        Script.COMPLETE,
        keys(
            layout.record(member),
            layout.leaseIndex(shard),
            layout.completionIndex(shard),
            layout.counter(member)),
        now(now),
        ascii(member),
        number(fence.value()),
        number(response.status()),
        HeaderLines.encode(response.headers()),
        response.body(),
        number(retentionMillis),
        CallNonce.next(),
        number(retentionMillis + retentionMillis));
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    String member = fencedMember(id, fence);
    fenced(
        "release",
        id,
        fence,
        Script.RELEASE,
        keys(
            layout.record(member),
            layout.counter(member),
            layout.leaseIndex(layout.shardOf(member)),
            layout.releaseReceipt(member)),
        now(now),
        ascii(member),
        number(fence.value()),
        number(counterExpiryMillis(0)),
        CallNonce.next(),
        number(receiptMillis));
  }

  /** Read by a script, so that it runs on the primary even on a connection that reads replicas. */
  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    List<Object> rows =
        calls.script(
            "lookup of " + id,
            Script.RECORDS,
            keys(layout.record(KeyLayout.member(id))),
            SERVER_NOW);
    return Replies.snapshot(id, rows.get(0));
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

  /** The refused leases among {@code leases}, each with what was found instead. */
  private Map<RecordId, String> renew(
      Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    byte[] at = now(now);
    long us = positive(lease, "lease");
    Map<RecordId, String> refused =
        shardCalls.renew(leases, at, us, inFlightExpiryMillis(us), counterExpiryMillis(us));
    if (refused.size() < leases.size()) {
      awaitReplicas("renewal of " + leases.size() + " leases");
    }
    return refused;
  }

  private void fenced(
      String op, RecordId id, FenceToken fence, Script script, byte[][] keys, byte[]... args) {
    List<Object> reply = calls.script(op + " of " + id, script, keys, args);
    if (!reply.isEmpty() && reply.get(0) instanceof byte[]) {
      throw new LeaseLostException(id, fence, RedisCalls.text(reply, 0));
    }
    awaitReplicas(op + " of " + id);
  }

  /**
   * With {@link Builder#waitForReplicas}: {@code WAIT} on the store's acknowledgement connection,
   * and a write fewer replicas acknowledged is reported as {@link StoreUnavailableException}.
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

  private static String fencedMember(RecordId id, FenceToken fence) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    return KeyLayout.member(id);
  }

  private byte[] now(Instant now) {
    Objects.requireNonNull(now, "now");
    return clock == RedisClock.SERVER ? SERVER_NOW : number(Micros.of(now));
  }

  /** How long an in-flight record is kept at most: its lease, then the retention. */
  private long inFlightExpiryMillis(long leaseMicros) {
    return Micros.ceilMillis(leaseMicros) + retentionMillis;
  }

  /** How long a fence counter is kept: a whole retention longer than its record. */
  private long counterExpiryMillis(long leaseMicros) {
    return inFlightExpiryMillis(leaseMicros) + retentionMillis;
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

  private static byte[][] keys(byte[]... keys) {
    return keys;
  }

  private static byte[] number(long n) {
    return ascii(Long.toString(n));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** Configures a {@link RedisKeyStore}. Not thread-safe; {@link #build()} yields the store. */
  public static final class Builder {
    private final RedisClusterAsyncCommands<byte[], byte[]> commands;
    private final Object connection;
    private final boolean cluster;
    private String keyPrefix = DEFAULT_KEY_PREFIX;
    private int indexShards;
    private RedisClock clock = RedisClock.SERVER;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private Duration retention = DEFAULT_RETENTION;
    private int waitReplicas;
    private Duration waitTimeout = Duration.ZERO;
    private @Nullable StatefulRedisConnection<byte[], byte[]> replicaAcks;

    private Builder(
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
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
      return this;
    }

    /**
     * How many index shards the records are spread over; default 1 on a standalone connection, 64
     * on a Cluster. A record, its fence counter and its shard's two indexes share one hash tag, so
     * in a Cluster the records of one shard live in one slot: shards spread them over nodes, and
     * the reaper and {@code findAbandoned} pay one script per shard. Fixed for the life of the
     * data, like a table name: a store with another count looks for records in other keys.
     *
     * @throws IllegalArgumentException if not 1 to 16384
     */
    public Builder indexShards(int shards) {
      if (shards < 1 || shards > 16384) {
        throw new IllegalArgumentException("indexShards must be 1 to 16384, but was " + shards);
      }
      this.indexShards = shards;
      return this;
    }

    /** Whose clock judges leases and windows; default {@link RedisClock#SERVER}. */
    public Builder clock(RedisClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * How long any one command may take before the call throws {@link StoreUnavailableException};
     * default 2 s. Keep it well below the engine's lease and its {@code leaseSafetyMargin()} (5 s):
     * a renewal that waits longer leaves every lease of the instance unconfirmed. Connecting is the
     * connection's own business: give the client a connect timeout below the lease too ({@code
     * SocketOptions.connectTimeout}, 10 s by default in Lettuce).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder commandTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "commandTimeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("commandTimeout must be > 0, but was " + timeout);
      }
      this.commandTimeout = timeout;
      return this;
    }

    /**
     * The engine's retention (72 h by default, as the engine's): the backstop key expiry of every
     * record (its lease plus this while in flight, this once complete), and of each fence counter
     * (a retention longer than its record), so that records nobody reaps do not stay forever. Set
     * it to the engine's {@code retention}, never shorter: a key expiry shorter than the retention
     * would forget a record before the reaper may.
     *
     * @throws IllegalArgumentException if not at least one millisecond
     */
    public Builder retention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.toMillis() < 1) {
        throw new IllegalArgumentException("retention must be at least 1 ms, but was " + retention);
      }
      this.retention = retention;
      return this;
    }

    /**
     * After every write, requires {@code replicas} replicas to have acknowledged it within {@code
     * timeout} ({@code WAIT replicas timeout}, sent on {@code acknowledgements}); a write fewer
     * acknowledged throws {@link StoreUnavailableException}. A claim so reported is withdrawn first
     * (best effort: a fresh claim is undone, a takeover's lease ended), so that its retry can claim
     * again; a completion, checkpoint or release so reported stands on the primary. This narrows,
     * and does not close, the window in which a failover loses an acknowledged claim: {@code
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
    public Builder waitForReplicas(
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
     * Builds the store. It sends nothing: scripts are loaded on first use.
     *
     * @throws IllegalArgumentException if the key prefix breaks its rule
     * @throws IllegalStateException if {@link #waitForReplicas} was set on a Cluster connection
     *     (Lettuce does not send {@code WAIT} to the node that took the write), with the store's
     *     own connection as the acknowledgement connection, or with a timeout not shorter than the
     *     command timeout (the wait would be cut off before Redis answers)
     */
    public RedisKeyStore build() {
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
      return new RedisKeyStore(this);
    }
  }
}
