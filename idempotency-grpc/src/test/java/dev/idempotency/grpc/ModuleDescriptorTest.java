package dev.idempotency.grpc;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported (not internal), core, client and gRPC transitive.
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiOnlyAndRequiresCoreClientAndGrpcTransitively() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.grpc")
        .exportsExactly("dev.idempotency.grpc")
        .exportsNothingQualified()
        .opensNothing()
        .requiresTransitivelyExactly("dev.idempotency.core", "dev.idempotency.client", "io.grpc")
        .requiresStaticallyExactly("org.jspecify")
        .doesNotRequire("dev.idempotency.http");
  }
}
