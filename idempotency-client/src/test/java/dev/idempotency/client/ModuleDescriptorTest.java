package dev.idempotency.client;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the public packages exported, internal not; no dependency beyond the JDK.
 */
class ModuleDescriptorTest {
  private static ModuleDescriptorAssert descriptor() {
    return ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.client");
  }

  @Test
  void exportsTheApiPackagesOnly() {
    descriptor()
        .exportsExactly("dev.idempotency.client", "dev.idempotency.client.http")
        .exportsNothingQualified()
        .containsPackages("dev.idempotency.client.internal")
        .opensNothing();
  }

  /**
   * java.net.http is transitive because the adapter's API speaks its types; at run time nothing
   * else is required. org.jspecify is required statically, for its annotations at compile time
   * only, and transitively.
   */
  @Test
  void requiresOnlyTheJdk() {
    descriptor()
        .requiresAtRunTimeExactly("java.base", "java.net.http")
        .requiresStaticallyExactly("org.jspecify")
        // transitive as well: a module compiling against this API reads the annotations on its
        // signatures
        .requiresTransitivelyExactly("java.net.http", "org.jspecify");
  }
}
