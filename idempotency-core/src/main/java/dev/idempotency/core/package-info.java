/**
 * The engine: {@link dev.idempotency.core.IdempotencyEngine} claims a key, runs the operation while
 * heartbeating its lease, stores the result under the fence and maps everything to an {@link
 * dev.idempotency.core.Outcome}. Also here: its immutable configuration, the in-flight and
 * stored-response policies, the {@link dev.idempotency.core.InMemoryKeyStore}, the {@link
 * dev.idempotency.core.Reaper}, the {@link dev.idempotency.core.Completer}, and the {@link
 * dev.idempotency.core.FenceChecker} that guards a resource downstream of a fenced owner.
 *
 * <p>Every public type says whether it is thread-safe; the engine, its configuration, the policies,
 * the in-memory store and the fence checker are.
 */
@NullMarked
package dev.idempotency.core;

import org.jspecify.annotations.NullMarked;
