/**
 * Typed events the engine publishes for every decision it makes about a key, and the listener that
 * receives them: the hooks for logs, metrics (replays, conflicts, mismatches, takeovers, lost
 * leases, duplicate side effects) and audits.
 */
@NullMarked
package dev.idempotency.event;

import org.jspecify.annotations.NullMarked;
