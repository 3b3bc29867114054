package dev.idempotency.store.jdbc;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor exports only the public package, requires the API and java.sql
 * transitively, and needs org.jspecify at compile time only.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyThePublicPackage() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.store.jdbc")
        .exportsExactly("dev.idempotency.store.jdbc")
        .containsPackages("dev.idempotency.store.jdbc.internal")
        .requiresTransitivelyExactly("dev.idempotency.api", "java.sql")
        // org.jspecify is required statically, for its annotations at compile time only
        .requiresAtRunTimeExactly("java.base", "dev.idempotency.api", "java.sql")
        .requiresStaticallyExactly("org.jspecify");
  }
}
