package dev.idempotency.store.redis;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor exports only the public package, requires the API and Lettuce transitively
 * (its connection types are in the builder), and needs org.jspecify at compile time only.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyThePublicPackage() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.store.redis")
        .exportsExactly("dev.idempotency.store.redis")
        .containsPackages("dev.idempotency.store.redis.internal")
        .requiresTransitivelyExactly("dev.idempotency.api", "lettuce.core")
        .requiresAtRunTimeExactly("java.base", "dev.idempotency.api", "lettuce.core")
        .requiresStaticallyExactly("org.jspecify");
  }
}
