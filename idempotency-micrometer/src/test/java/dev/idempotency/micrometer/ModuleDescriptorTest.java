package dev.idempotency.micrometer;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module descriptor: the API package exported, core and Micrometer transitive. */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiOnlyAndRequiresCoreAndMicrometerTransitively() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.micrometer")
        .exportsExactly("dev.idempotency.micrometer")
        .exportsNothingQualified()
        .opensNothing()
        .requiresTransitivelyExactly("dev.idempotency.core", "micrometer.core")
        .requiresStaticallyExactly("org.jspecify");
  }
}
