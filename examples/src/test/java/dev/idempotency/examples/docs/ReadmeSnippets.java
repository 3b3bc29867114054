package dev.idempotency.examples.docs;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletContext;
import java.util.EnumSet;
import javax.sql.DataSource;

/**
 * The server in ten lines, compiled, as README.md, docs/getting-started.md and docs/http.md show
 * it: {@link DocSnippetsTest} holds each of those blocks equal to the region between the tags here,
 * so that a snippet that no longer compiles fails the build.
 */
final class ReadmeSnippets {
  private ReadmeSnippets() {}

  static IdempotencyEngine serverInTenLines(DataSource dataSource, ServletContext servletContext) {
    // tag::server-in-ten-lines[]
    KeyStore store = JdbcKeyStore.builder(dataSource).build(); // PostgreSQL, MySQL/MariaDB or H2
    IdempotencyEngine engine =
        IdempotencyEngine.builder(store).build(); // 24 h window, 72 h retention, 30 s lease
    IdempotencyHttp http =
        IdempotencyHttp.builder(engine).build(); // POST and PATCH need Idempotency-Key
    servletContext
        .addFilter(
            "idempotency", new IdempotencyFilter(http)) // after authentication: scope = principal
        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    // end::server-in-ten-lines[]
    return engine;
  }
}
