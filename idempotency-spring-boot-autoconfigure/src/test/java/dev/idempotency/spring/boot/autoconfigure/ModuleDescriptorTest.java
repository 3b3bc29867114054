package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module descriptor: only the configuration package exported, and opened to Spring. */
class ModuleDescriptorTest {
  @Test
  void exportsTheConfigurationPackageOnly() {
    ModuleDescriptorAssert.of(
            Path.of("target", "classes"), "dev.idempotency.spring.boot.autoconfigure")
        .exportsExactly("dev.idempotency.spring.boot.autoconfigure")
        .exportsNothingQualified()
        .opensExactly(
            "dev.idempotency.spring.boot.autoconfigure",
            "spring.core",
            "spring.beans",
            "spring.context",
            "spring.boot")
        .requires("dev.idempotency.servlet", "spring.boot.autoconfigure", "org.jspecify");
  }
}
