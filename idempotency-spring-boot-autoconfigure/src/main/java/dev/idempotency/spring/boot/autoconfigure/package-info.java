/**
 * Spring Boot auto-configuration of the idempotency library: {@link
 * dev.idempotency.spring.boot.autoconfigure.IdempotencyProperties} ({@code idempotency.*}), the
 * engine and the servlet filter ({@link
 * dev.idempotency.spring.boot.autoconfigure.IdempotencyAutoConfiguration}), the JDBC store, the
 * meters and the store's health indicator. Every bean it defines steps aside for one the
 * application defines.
 */
@NullMarked
package dev.idempotency.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
