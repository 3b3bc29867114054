package dev.idempotency.testing;

import dev.idempotency.IdempotencyKey;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The API module exports exactly the API packages and needs nothing but java.base. Checked here,
 * not in idempotency-api: this module depends on the API, so the API's tests cannot use it.
 */
class ApiModuleDescriptorTest {
  /** Where the API's classes are on this module's class path: its jar or its classes directory. */
  static Path apiLocation() throws URISyntaxException {
    return Path.of(
        IdempotencyKey.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void exportsOnlyTheApiPackagesAndRequiresNothing() throws URISyntaxException {
    ModuleDescriptorAssert.of(apiLocation(), "dev.idempotency.api")
        .exportsExactly(
            "dev.idempotency",
            "dev.idempotency.spi",
            "dev.idempotency.event",
            "dev.idempotency.internal")
        .exportsOnlyQualified(
            "dev.idempotency.internal", "dev.idempotency.core", "dev.idempotency.tck")
        // org.jspecify is required statically, for its annotations at compile time only
        .requiresAtRunTimeExactly("java.base")
        .requiresStaticallyExactly("org.jspecify");
  }
}
