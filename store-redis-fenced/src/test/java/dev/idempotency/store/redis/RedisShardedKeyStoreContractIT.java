package dev.idempotency.store.redis;

/**
 * The TCK against the shared Redis server with 7 index shards, time judged by the TCK's controlled
 * clock: every rule that walks the indexes (findAbandoned's order and limit, the reaper's batches,
 * heartbeatAll) across shards, as a Cluster connection spreads them, on a standalone server. The
 * controlled clock keeps it to about 10 s; {@link RedisServerClockKeyStoreContractIT} covers the
 * server's clock with one shard.
 */
class RedisShardedKeyStoreContractIT extends RedisKeyStoreContract {
  @Override
  RedisClock clock() {
    return RedisClock.ENGINE;
  }

  @Override
  int indexShards() {
    return 7;
  }
}
