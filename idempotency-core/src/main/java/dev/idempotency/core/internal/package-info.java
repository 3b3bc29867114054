/** The engine's internals; not exported by the module and not part of the API. */
@NullMarked
package dev.idempotency.core.internal;

import org.jspecify.annotations.NullMarked;
