/**
 * Implementation of the JDBC key store: the SQL of each dialect, named-parameter binding, row
 * decoding and the mapping of {@code SQLException}s to the SPI's exceptions. Not exported; no
 * compatibility promise.
 */
@NullMarked
package dev.idempotency.store.jdbc.internal;

import org.jspecify.annotations.NullMarked;
