package dev.idempotency.tck;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Tests run on the class path, so this checks the compiled module-info instead: the TCK exports
 * only its API package, keeps {@code internal} hidden, opens the contract package to JUnit alone,
 * and needs org.jspecify at compile time only.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheContractPackageAndOpensItToJunit() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.tck")
        .exportsExactly("dev.idempotency.tck")
        .opensExactly("dev.idempotency.tck", "org.junit.platform.commons")
        .requiresTransitivelyExactly("dev.idempotency.api", "org.junit.jupiter.api")
        // org.jspecify is required statically, for its annotations at compile time only
        .requiresAtRunTimeExactly(
            "java.base", "dev.idempotency.api", "org.junit.jupiter.api", "org.assertj.core")
        .requiresStaticallyExactly("org.jspecify");
  }
}
