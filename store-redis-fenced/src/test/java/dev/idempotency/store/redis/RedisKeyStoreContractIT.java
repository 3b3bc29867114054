package dev.idempotency.store.redis;

/** The TCK against the shared Redis server, time judged by the TCK's controlled clock. */
class RedisKeyStoreContractIT extends RedisKeyStoreContract {
  @Override
  RedisClock clock() {
    return RedisClock.ENGINE;
  }
}
