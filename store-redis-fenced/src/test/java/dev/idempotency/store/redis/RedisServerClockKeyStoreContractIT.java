package dev.idempotency.store.redis;

/**
 * The TCK against the shared Redis server, time judged by Redis' {@code TIME} with short real
 * leases (the TCK's {@code SERVER_CLOCK} profile, section 8).
 */
class RedisServerClockKeyStoreContractIT extends RedisKeyStoreContract {
  @Override
  RedisClock clock() {
    return RedisClock.SERVER;
  }
}
