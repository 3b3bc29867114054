package dev.idempotency.http;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module exports only its API package; internals stay hidden; at run time it needs only the
 * core module.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackageAndRequiresOnlyCore() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.http")
        .exportsExactly("dev.idempotency.http")
        .exportsNothingQualified()
        .requiresAtRunTimeExactly("java.base", "dev.idempotency.core")
        // org.jspecify is required statically, for its annotations at compile time only, and
        // transitively, so that a module compiling against this API reads the annotations on its
        // signatures
        .requiresStaticallyExactly("org.jspecify")
        .requiresTransitivelyExactly("dev.idempotency.core", "org.jspecify");
  }
}
