package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.openapi.OpenApiReadException;
import dev.idempotency.openapi.OpenApiRoutes;
import dev.idempotency.spring.boot.autoconfigure.internal.DocumentedEndpoints;
import java.nio.file.Path;
import java.util.Objects;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The endpoint rules of the API's OpenAPI document ({@code idempotency.openapi.document}), read
 * once at start-up by {@code idempotency-openapi}: an unreadable document, or one in which no
 * operation declares the key header, fails start-up naming the property.
 */
@AutoConfiguration(before = IdempotencyAutoConfiguration.class)
@ConditionalOnClass(OpenApiRoutes.class)
@ConditionalOnProperty(prefix = "idempotency.openapi", name = "document")
@EnableConfigurationProperties({IdempotencyOpenApiProperties.class, IdempotencyProperties.class})
public final class IdempotencyOpenApiAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyOpenApiAutoConfiguration() {}

  @Bean
  DocumentedEndpoints idempotencyDocumentedEndpoints(
      IdempotencyOpenApiProperties openApi, IdempotencyProperties properties) {
    Path document = Objects.requireNonNull(openApi.getDocument(), "the condition checked it");
    try {
      return new DocumentedEndpoints(
          OpenApiRoutes.from(document, properties.getHeaderName(), openApi.getPathPrefix()));
    } catch (OpenApiReadException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "idempotency.openapi.document (" + document + "): " + e.getMessage(), e);
    }
  }
}
