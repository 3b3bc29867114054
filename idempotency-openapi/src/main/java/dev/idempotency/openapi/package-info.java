/**
 * Retry safety from an OpenAPI document.
 *
 * <p>{@link dev.idempotency.openapi.OpenApiAudit} reads a document (YAML or JSON, a file or a
 * directory, {@code $ref}s across files resolved) and gives every operation a {@link
 * dev.idempotency.openapi.Verdict} with its reason and {@link dev.idempotency.openapi.Finding}s;
 * the {@link dev.idempotency.openapi.AuditReport} prints as a table, JSON or the integrator docs'
 * Markdown. {@link dev.idempotency.openapi.OpenApiRoutes} turns the operations that declare the key
 * into the {@link dev.idempotency.http.EndpointRule}s of the servlet filter, so that which endpoint
 * needs a key is written once, in the document. {@link dev.idempotency.openapi.OpenApiCli} is the
 * command line. The verdicts, the decisions behind them and the exit codes are in {@code
 * docs/openapi.md}.
 *
 * <p>Nulls: no method here accepts or returns {@code null} unless its signature says {@link
 * org.jspecify.annotations.Nullable @Nullable}. Every type says whether it is thread-safe.
 */
@NullMarked
package dev.idempotency.openapi;

import org.jspecify.annotations.NullMarked;
