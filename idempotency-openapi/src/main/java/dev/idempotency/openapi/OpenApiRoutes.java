package dev.idempotency.openapi;

import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.openapi.internal.DocumentReader;
import dev.idempotency.openapi.internal.RouteTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The filter's route table from the API's OpenAPI document, so that which endpoint needs a key is
 * written once, in the document:
 *
 * <pre>{@code
 * IdempotencyHttpBuilder http = IdempotencyHttp.builder(engine);
 * OpenApiRoutes.from(Path.of("openapi.yaml")).forEach(http::endpoint);
 * }</pre>
 *
 * <p>An operation that declares the key header {@code required: true} gets a {@code REQUIRED} rule,
 * one that declares it optional an {@code OPTIONAL} rule; safe methods and operations without the
 * header get none (so the filter passes them through). Path templates match concrete paths ({@code
 * /orders/{id}} is the pattern {@code /orders/*}); the rules come literal paths first, as OpenAPI
 * matches them. Conventions ({@link OpenApiAudit.Builder#keyConvention}) are not read: the table
 * holds what the document declares. Stateless.
 */
public final class OpenApiRoutes {
  private OpenApiRoutes() {}

  /**
   * The rules of the document(s) at {@code spec}, for the header {@code Idempotency-Key}, paths as
   * the document writes them.
   *
   * @throws OpenApiReadException when a document is unreadable or invalid
   * @throws IllegalArgumentException when no operation declares the header: an empty table would
   *     leave {@link IdempotencyHttpBuilder}'s default (POST and PATCH everywhere, required), which
   *     is not what the document says
   */
  public static List<EndpointRule> from(Path spec) {
    return from(spec, "Idempotency-Key", "");
  }

  /**
   * The rules of the document(s) at {@code spec}.
   *
   * @param headerName the key header (the builder's {@code headerName})
   * @param pathPrefix prepended to every path, {@code ""} for none: what the request path the
   *     filter matches has before the document's paths (a servlet path under which the API is
   *     mapped); starts with {@code /} and does not end with it
   * @throws OpenApiReadException when a document is unreadable or invalid
   * @throws IllegalArgumentException when no operation declares the header, or the prefix is
   *     malformed
   */
  public static List<EndpointRule> from(Path spec, String headerName, String pathPrefix) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(headerName, "headerName");
    Objects.requireNonNull(pathPrefix, "pathPrefix");
    if (!pathPrefix.isEmpty() && (!pathPrefix.startsWith("/") || pathPrefix.endsWith("/"))) {
      throw new IllegalArgumentException(
          "pathPrefix must be empty or start with '/' and not end with it, but was \""
              + pathPrefix
              + "\"");
    }
    List<EndpointRule> rules =
        RouteTable.build(DocumentReader.read(spec), headerName, pathPrefix).rules();
    if (rules.isEmpty()) {
      throw new IllegalArgumentException(
          spec
              + " declares the header "
              + headerName
              + " on no operation: an empty route table would leave the filter's default (POST"
              + " and PATCH on every path, key required)");
    }
    return rules;
  }
}
