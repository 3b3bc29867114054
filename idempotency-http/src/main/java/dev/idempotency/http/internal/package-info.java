/**
 * Implementation details of {@code dev.idempotency.http}: the problem responses ({@code Problems})
 * and their JSON writer, the storing rules of responses, the status endpoint, path patterns, the
 * fingerprint functions and the strict JSON reader they canonicalise with. Not exported; may change
 * at any time.
 */
@NullMarked
package dev.idempotency.http.internal;

import org.jspecify.annotations.NullMarked;
