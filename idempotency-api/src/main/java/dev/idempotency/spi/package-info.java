/**
 * The service-provider interface a key store implements: {@link dev.idempotency.spi.KeyStore}, its
 * optional transactional extension {@link dev.idempotency.spi.TransactionalKeyStore}, and the
 * values they exchange: eight types. The exceptions a store throws ({@link
 * dev.idempotency.KeyStoreException}, {@link dev.idempotency.StoreUnavailableException}, {@link
 * dev.idempotency.LeaseLostException}) are in {@code dev.idempotency}, since applications catch
 * them too.
 *
 * <p>The one hard promise of the SPI is an atomic, fenced claim: {@code claim} is one operation the
 * storage arbitrates, and every later write of the owner is conditional on its fence token. The
 * numbered rules a store must follow are in the TCK's {@code SPEC.md}; the {@code tck} module's
 * {@code KeyStoreContract} proves them.
 *
 * <p>Nulls: no method here accepts or returns {@code null}; absence is an {@link
 * java.util.Optional} or an empty list. A {@code null} argument throws {@link
 * java.lang.NullPointerException}.
 */
@NullMarked
package dev.idempotency.spi;

import org.jspecify.annotations.NullMarked;
