package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.servlet.IdempotencyFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletContext;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/openapi.md, compiled here, where the module is on the class path; the examples
 * module's DocSnippetsTest holds each block of the page equal to its region. Its name keeps it out
 * of the test runs: the test method below is an application's, reading an application's document.
 */
class OpenApiSnippets {
  static void routeTable(IdempotencyEngine engine, ServletContext servletContext) {
    // tag::route-table[]
    IdempotencyHttpBuilder http = IdempotencyHttp.builder(engine);
    OpenApiRoutes.from(Path.of("openapi.yaml"))
        .forEach(http::endpoint); // or from(spec, headerName, "/api/v1")
    servletContext
        .addFilter("idempotency", new IdempotencyFilter(http.build()))
        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    // end::route-table[]
  }

  // tag::in-a-build[]
  @Test
  void everyWriteEndpointTakesAKeyOrIsDocumented() {
    AuditReport report =
        OpenApiAudit.builder().build().audit(Path.of("src/main/resources/openapi.yaml"));
    assertThat(report.failing()).isEmpty();
  }
  // end::in-a-build[]
}
