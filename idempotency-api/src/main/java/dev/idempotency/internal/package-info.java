/**
 * The transition table of a key's state, which the in-memory store and the TCK's model move records
 * by. Not API: exported to idempotency-core and the TCK only.
 */
@NullMarked
package dev.idempotency.internal;

import org.jspecify.annotations.NullMarked;
