/**
 * The value types every part of the library exchanges: the {@link dev.idempotency.IdempotencyKey
 * key} a client mints, the {@link dev.idempotency.Scope scope} that keys it per caller, the request
 * {@link dev.idempotency.Fingerprint fingerprint}, the {@link dev.idempotency.StoredResponse stored
 * response}, {@link dev.idempotency.RecoveryPoint recovery points}, {@link
 * dev.idempotency.FenceToken fence tokens}, the three-state machine ({@link
 * dev.idempotency.KeyState}, {@code dev.idempotency.internal.StateTransition}), what a piece of
 * work answers ({@link dev.idempotency.Answer}), what an owner sees while it runs ({@link
 * dev.idempotency.Execution}), and the exceptions of a store that applications meet ({@link
 * dev.idempotency.KeyStoreException} and its {@link dev.idempotency.StoreUnavailableException} and
 * {@link dev.idempotency.LeaseLostException}).
 *
 * <p>Every value type here is immutable and thread-safe. No method accepts or returns {@code null}
 * unless its javadoc says so; a {@code null} argument throws {@link java.lang.NullPointerException}
 * naming the parameter.
 *
 * <p>The guarantee these types serve is <em>effectively-once</em> within a documented key scope and
 * replay window: at-least-once delivery plus duplicate collapse.
 *
 * <p>Exactly-once delivery is impossible over an unreliable network; nothing here claims it.
 */
@NullMarked
package dev.idempotency;

import org.jspecify.annotations.NullMarked;
