/**
 * The advisor's per-method plans, its interceptor, and the transactions' plumbing. Not API:
 * exported only to the Spring Boot auto-configuration, which binds a request's transaction with
 * {@link dev.idempotency.spring.internal.StoreConnectionBinding}.
 */
@NullMarked
package dev.idempotency.spring.internal;

import org.jspecify.annotations.NullMarked;
