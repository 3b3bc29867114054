/** The Spring Boot example: a payments API with the idempotency starter. */
@NullMarked
package dev.idempotency.examples.springboot;

import org.jspecify.annotations.NullMarked;
