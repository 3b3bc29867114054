/**
 * The technology compatibility kit for {@link dev.idempotency.spi.KeyStore}: extend {@link
 * dev.idempotency.tck.KeyStoreContract} in a store's test sources with one factory method, and the
 * store is tested against every numbered rule of the TCK's {@code SPEC.md}.
 *
 * <p>A {@link dev.idempotency.spi.TransactionalKeyStore} also extends {@link
 * dev.idempotency.tck.TransactionalKeyStoreContract} (rules 10.x): one factory and two hooks that
 * write and read business rows through the store's transaction handle.
 *
 * <p>This package is the TCK's whole public API: the two abstract JUnit 5 test classes and their
 * extension points, and {@link dev.idempotency.tck.TckContext} (what a factory is told about the
 * test). Everything else is package-private or lives in {@code dev.idempotency.tck.internal}, and
 * may change in any release.
 */
@NullMarked
package dev.idempotency.tck;

import org.jspecify.annotations.NullMarked;
