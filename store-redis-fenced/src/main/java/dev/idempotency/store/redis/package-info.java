/**
 * The Redis key store: {@link dev.idempotency.store.redis.RedisKeyStore} and its builder, and the
 * {@link dev.idempotency.store.redis.RedisClock} that decides whose clock judges leases and
 * windows.
 *
 * <p>See {@code docs/stores-redis.md} for the scripts' logic, the key layout, the memory per
 * record, and what Redis can and cannot promise under replication, failover and restarts.
 */
@NullMarked
package dev.idempotency.store.redis;

import org.jspecify.annotations.NullMarked;
