/**
 * Spring Framework without Spring Boot: {@link dev.idempotency.spring.Idempotent} methods, applied
 * by the advisor {@link dev.idempotency.spring.IdempotentMethods} builds, and {@link
 * dev.idempotency.spring.IdempotentRestClient}, the client half as a {@code RestClient} request
 * interceptor.
 */
@NullMarked
package dev.idempotency.spring;

import org.jspecify.annotations.NullMarked;
