package dev.idempotency.client.resilience4j;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported, the client module and the stack's Resilience4j
 * modules transitive.
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiAndRequiresTheClientAndTheStackTransitively() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.client.resilience4j")
        .exportsExactly("dev.idempotency.client.resilience4j")
        .exportsNothingQualified()
        .opensNothing()
        .requiresTransitivelyExactly(
            "dev.idempotency.client",
            "io.github.resilience4j.circuitbreaker",
            "io.github.resilience4j.ratelimiter",
            "io.github.resilience4j.bulkhead")
        .requiresStaticallyExactly("org.jspecify");
  }
}
