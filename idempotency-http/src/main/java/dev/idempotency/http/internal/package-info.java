/**
 * Implementation details of {@code dev.idempotency.http}: the problem-body writer, path patterns, the bounded
 * body reader, the fingerprint functions and the small JSON canonicaliser. Not exported; may change at any time.
 */
package dev.idempotency.http.internal;
