package dev.idempotency.openapi;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported (not internal), idempotency-http transitive (its
 * EndpointRule is in the route table's signature), swagger-parser required but not transitive.
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiAndRequiresHttpTransitively() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.openapi")
        .exportsExactly("dev.idempotency.openapi")
        .exportsNothingQualified()
        .opensNothing()
        .requiresTransitivelyExactly("dev.idempotency.http")
        .requiresStaticallyExactly("org.jspecify")
        .requires("swagger.parser.v3", "java.net.http", "com.fasterxml.jackson.databind");
  }
}
