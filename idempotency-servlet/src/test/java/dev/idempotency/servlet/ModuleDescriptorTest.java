package dev.idempotency.servlet;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module exports only the filter's package and needs only the HTTP module, the Servlet API and
 * java.sql (the DataSource view of a request's transaction).
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheFilterPackage() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.servlet")
        .exportsExactly("dev.idempotency.servlet")
        // org.jspecify is required statically, for its annotations at compile time only
        .requiresAtRunTimeExactly(
            "java.base", "dev.idempotency.http", "jakarta.servlet", "java.sql")
        .requiresStaticallyExactly("org.jspecify");
  }
}
