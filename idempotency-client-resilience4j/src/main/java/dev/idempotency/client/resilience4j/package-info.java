/**
 * The Resilience4j integration: {@link dev.idempotency.client.resilience4j.IdempotentResilience}
 * and the {@link dev.idempotency.client.resilience4j.ResponseReader} it reads responses with.
 */
@NullMarked
package dev.idempotency.client.resilience4j;

import org.jspecify.annotations.NullMarked;
