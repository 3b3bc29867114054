package dev.idempotency.client.okhttp;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module descriptor: the API package exported, the client module and OkHttp transitive. */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiAndRequiresTheClientAndOkHttpTransitively() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.client.okhttp")
        .exportsExactly("dev.idempotency.client.okhttp")
        .exportsNothingQualified()
        .opensNothing()
        .requiresTransitivelyExactly("dev.idempotency.client", "okhttp3")
        .requiresStaticallyExactly("org.jspecify");
  }
}
