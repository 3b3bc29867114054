/**
 * Meters for the idempotency engine: {@link dev.idempotency.micrometer.IdempotencyMetrics} is the
 * engine's listener and times its store's claims; every tag has a fixed, small set of values.
 */
@NullMarked
package dev.idempotency.micrometer;

import org.jspecify.annotations.NullMarked;
