/**
 * Implementation of the Redis key store: the key layout, the Lua scripts and how they are called,
 * the decoding of their replies, and the mapping of Lettuce's failures to the SPI's exceptions. Not
 * exported; no compatibility promise.
 */
@NullMarked
package dev.idempotency.store.redis.internal;

import org.jspecify.annotations.NullMarked;
