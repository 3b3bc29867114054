/**
 * The per-call Resilience4j retry configuration driven by a {@code RetryLoop}. Not exported;
 * nothing here is API.
 */
@NullMarked
package dev.idempotency.client.resilience4j.internal;

import org.jspecify.annotations.NullMarked;
