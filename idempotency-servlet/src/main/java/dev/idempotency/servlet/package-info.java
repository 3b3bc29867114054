/**
 * {@link dev.idempotency.servlet.IdempotencyFilter}: the idempotency-key contract of {@code
 * idempotency-http} as a Jakarta Servlet 6 filter. It buffers the guarded request's body (bounded)
 * for the fingerprint and re-exposes it to the application, captures the application's whole
 * response (status, headers, body, {@code sendError}, {@code sendRedirect}, cookies), lets the
 * engine store it under the fence, then writes it; replays write the stored response. Everything
 * else in this package is package-private.
 */
@NullMarked
package dev.idempotency.servlet;

import org.jspecify.annotations.NullMarked;
