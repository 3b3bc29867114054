package dev.idempotency.openapi;

import org.jspecify.annotations.Nullable;

/**
 * How an operation takes the idempotency key. Immutable.
 *
 * @param required whether the document says the header is required
 * @param byConvention whether no parameter declares it and a convention named by the caller does
 *     ({@link OpenApiAudit.Builder#keyConvention})
 * @param maxLength the header schema's {@code maxLength}, when declared
 * @param pattern the header schema's {@code pattern}, when declared
 */
public record KeyDeclaration(
    boolean required,
    boolean byConvention,
    @Nullable Integer maxLength,
    @Nullable String pattern) {}
