/**
 * Stores for the TCK's self-test: {@link dev.idempotency.tck.mutants.MapKeyStore}, a plain correct
 * store, and {@link dev.idempotency.tck.mutants.Mutants}, copies of it with one deliberate bug
 * each.
 */
package dev.idempotency.tck.mutants;
