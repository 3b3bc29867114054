package dev.idempotency.spring.boot.autoconfigure;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idempotency.openapi.*} properties: which endpoints require a key, read from the API's
 * OpenAPI document ({@code idempotency-openapi} on the class path), so that the rule is written
 * once.
 */
@ConfigurationProperties("idempotency.openapi")
public class IdempotencyOpenApiProperties {
  /** The defaults. */
  public IdempotencyOpenApiProperties() {}

  /**
   * The OpenAPI document (a file, or a directory of them; {@code $ref}s between its files are
   * resolved). Its operations that declare the key header become endpoint rules, after those of
   * {@code idempotency.endpoints}. Unset: no rules from a document.
   */
  private @Nullable Path document;

  /**
   * What the request path has before the document's paths (a servlet path the API is mapped under),
   * for example {@code /api}; empty for none.
   */
  private String pathPrefix = "";

  public @Nullable Path getDocument() {
    return document;
  }

  public void setDocument(@Nullable Path document) {
    this.document = document;
  }

  public String getPathPrefix() {
    return pathPrefix;
  }

  public void setPathPrefix(String pathPrefix) {
    this.pathPrefix = pathPrefix;
  }
}
