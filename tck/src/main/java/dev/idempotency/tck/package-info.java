/**
 * The technology compatibility kit for {@link dev.idempotency.spi.KeyStore}: extend
 * {@link dev.idempotency.tck.KeyStoreContract} in a store's test sources with one factory method, and the store is
 * tested against every numbered rule of the TCK's {@code SPEC.md}.
 *
 * <p>This package is the TCK's whole public API: {@link dev.idempotency.tck.KeyStoreContract} (the abstract JUnit 5
 * test class and its three extension points) and {@link dev.idempotency.tck.TckContext} (what a factory is told
 * about the test). Everything else lives in {@code dev.idempotency.tck.internal} and may change in any release.
 */
@NullMarked
package dev.idempotency.tck;

import org.jspecify.annotations.NullMarked;
