package dev.idempotency.core;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module exports only its API package; internals stay hidden; it needs only the API module. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackageAndRequiresOnlyTheApiModule() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.core")
        .exportsExactly("dev.idempotency.core")
        .exportsNothingQualified()
        // org.jspecify is required statically, for its annotations at compile time only
        .requiresAtRunTimeExactly("java.base", "dev.idempotency.api")
        .requiresStaticallyExactly("org.jspecify");
  }
}
