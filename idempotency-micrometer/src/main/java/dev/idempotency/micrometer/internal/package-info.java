/** Not API: the timing store decorator behind {@code IdempotencyMetrics.timed}. */
@NullMarked
package dev.idempotency.micrometer.internal;

import org.jspecify.annotations.NullMarked;
