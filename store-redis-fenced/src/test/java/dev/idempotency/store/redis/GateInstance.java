package dev.idempotency.store.redis;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.event.IdempotencyListener;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.List;

/**
 * One application instance of an outage gate: its own Lettuce client and connection, store and
 * engine, closed together (engine, connection, client).
 */
final class GateInstance implements AutoCloseable {
  private final AbstractRedisClient client;
  private final StatefulConnection<byte[], byte[]> connection;
  final RedisKeyStore store;
  final IdempotencyEngine engine;

  private GateInstance(
      AbstractRedisClient client,
      StatefulConnection<byte[], byte[]> connection,
      RedisKeyStore store,
      IdempotencyEngine.Builder engine) {
    this.client = client;
    this.connection = connection;
    this.store = store;
    this.engine = engine.build();
  }

  /** An instance on one server. */
  static GateInstance standalone(
      String uri,
      Duration commandTimeout,
      Duration lease,
      Duration heartbeat,
      IdempotencyListener listener) {
    RedisClient client = RedisClient.create(uri);
    StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
    RedisKeyStore store = RedisKeyStore.builder(connection).commandTimeout(commandTimeout).build();
    return new GateInstance(client, connection, store, engine(store, lease, heartbeat, listener));
  }

  /**
   * An instance on a Cluster, with the topology refresh docs/stores-redis.md recommends and every
   * record in one index shard, so in one slot (on one primary).
   */
  static GateInstance cluster(
      List<io.lettuce.core.RedisURI> seeds,
      Duration commandTimeout,
      Duration lease,
      Duration heartbeat,
      IdempotencyListener listener) {
    RedisClusterClient client = RedisClusterClient.create(seeds);
    client.setOptions(
        ClusterClientOptions.builder()
            .topologyRefreshOptions(RedisClusterProcesses.RECOMMENDED_REFRESH)
            .build());
    StatefulRedisClusterConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE);
    RedisKeyStore store =
        RedisKeyStore.builder(connection).commandTimeout(commandTimeout).indexShards(1).build();
    return new GateInstance(client, connection, store, engine(store, lease, heartbeat, listener));
  }

  private static IdempotencyEngine.Builder engine(
      RedisKeyStore store, Duration lease, Duration heartbeat, IdempotencyListener listener) {
    return IdempotencyEngine.builder(store)
        .config(
            IdempotencyConfig.builder()
                .lease(lease)
                .heartbeatInterval(heartbeat)
                .listener(listener)
                .build());
  }

  @Override
  public void close() {
    try {
      engine.close();
      connection.close();
    } finally {
      client.shutdown();
    }
  }
}
