/** The operators' command line over {@link dev.idempotency.core.KeyStoreAdmin}. */
@NullMarked
package dev.idempotency.admin;

import org.jspecify.annotations.NullMarked;
