/**
 * Implementation details of {@code dev.idempotency.openapi}: reading documents, judging operations,
 * the key syntax checks, the report writers, the route table, the command line and the {@code
 * verify} client. Not exported; may change at any time.
 */
@NullMarked
package dev.idempotency.openapi.internal;

import org.jspecify.annotations.NullMarked;
