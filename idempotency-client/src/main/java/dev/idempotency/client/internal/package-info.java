/**
 * Implementation of the retry machinery: the per-call state machine ({@link
 * dev.idempotency.client.internal.RetryRun}), the allowlist ({@link
 * dev.idempotency.client.internal.Classifier}), {@code Retry-After} and problem-body parsing, and
 * the body handler the HTTP adapter uses. Not exported from the module; nothing here is API, and it
 * changes without notice.
 */
@NullMarked
package dev.idempotency.client.internal;

import org.jspecify.annotations.NullMarked;
