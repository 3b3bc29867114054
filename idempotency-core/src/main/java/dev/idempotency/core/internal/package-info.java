/** The engine's internals; not exported by the module and not part of the API. */
package dev.idempotency.core.internal;
