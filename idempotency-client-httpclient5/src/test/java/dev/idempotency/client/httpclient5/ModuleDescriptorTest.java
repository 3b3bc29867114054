package dev.idempotency.client.httpclient5;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported, the client module and HttpClient 5 transitive.
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiAndRequiresTheClientAndHttpClientTransitively() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.client.httpclient5")
        .exportsExactly("dev.idempotency.client.httpclient5")
        .exportsNothingQualified()
        .opensNothing()
        .requiresTransitivelyExactly(
            "dev.idempotency.client",
            "org.apache.httpcomponents.client5.httpclient5",
            "org.apache.httpcomponents.core5.httpcore5")
        .requiresStaticallyExactly("org.jspecify");
  }
}
