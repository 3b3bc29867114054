/**
 * The advisor's per-method plans, its interceptor, and the transactions' plumbing. Not exported.
 */
@NullMarked
package dev.idempotency.spring.internal;

import org.jspecify.annotations.NullMarked;
